"""What the tests share: servers, fixtures, fakes at the network edge, catalogs."""
