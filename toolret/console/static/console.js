// toolret console: Ctrl/Cmd+Enter in a text box submits its form; nothing else runs here.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
  const form = event.target.closest && event.target.closest("form");
  if (form) { event.preventDefault(); form.requestSubmit(); }
});
