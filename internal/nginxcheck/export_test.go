package nginxcheck

// Binary is the package's Binary, looked up on the first call: what
// Installed's V and Version run, for the test that holds it to one look-up.
func (i *Installed) Binary() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.binary()
}
