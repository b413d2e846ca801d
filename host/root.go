package host

import "path/filepath"

// ReadRoot reads the facts of the machine at root: this one ("/"), whose
// nginx answers nginx -V, or a filesystem such as a container's, whose
// nginx binary is read, never run.
func ReadRoot(root string) *Facts {
	r := &Reader{Root: root, Nginx: RunNginxV}
	if abs, err := filepath.Abs(root); err != nil || abs != "/" {
		r.Nginx = func() (string, error) { return NginxVFromBinary(root) }
		r.NginxSource = "the nginx binary under " + root + " (read, not run)"
	}
	return r.Read()
}
