"""The roster's eval data: cases in two halves, and traffic for the learning replay."""
