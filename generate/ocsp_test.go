package generate

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// makeCert returns a DER certificate naming the given OCSP responders and
// CA issuer URLs (the other access method of the same extension).
func makeCert(t testing.TB, ocsp, issuers []string, rsaKey bool) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(0x1234567890),
		Subject:               pkix.Name{CommonName: "example.org"},
		DNSNames:              []string{"example.org"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		OCSPServer:            ocsp,
		IssuingCertificateURL: issuers,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	var der []byte
	var err error
	if rsaKey {
		k, kerr := rsa.GenerateKey(rand.Reader, 2048)
		if kerr != nil {
			t.Fatal(kerr)
		}
		der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	} else {
		k, kerr := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if kerr != nil {
			t.Fatal(kerr)
		}
		der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	}
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// checkOCSP holds ocspServers to crypto/x509's reading of the same bytes.
func checkOCSP(t *testing.T, name string, der []byte) {
	t.Helper()
	c, err := x509.ParseCertificate(der)
	got, ok := ocspServers(der)
	if err != nil {
		return // x509 refuses it; gen then staples nothing either way
	}
	if !ok {
		t.Errorf("%s: x509 reads the certificate, ocspServers does not", name)
		return
	}
	if !slices.Equal(got, c.OCSPServer) {
		t.Errorf("%s: ocspServers = %q, x509 says %q", name, got, c.OCSPServer)
	}
}

func TestOCSPServersMatchX509(t *testing.T) {
	cases := []struct {
		name          string
		ocsp, issuers []string
		rsa           bool
	}{
		{"none", nil, nil, false},
		{"one", []string{"http://ocsp.example.org"}, nil, false},
		{"two and issuers", []string{"http://o1.example.org/", "http://o2.example.org/x"}, []string{"http://ca.example.org/ca.crt"}, true},
		{"issuers only", nil, []string{"http://ca.example.org/ca.crt"}, true},
	}
	for _, c := range cases {
		der := makeCert(t, c.ocsp, c.issuers, c.rsa)
		checkOCSP(t, c.name, der)
		if got, _ := ocspServers(der); !slices.Equal(got, c.ocsp) {
			t.Errorf("%s: ocspServers = %q, want %q", c.name, got, c.ocsp)
		}
	}
	// the system's CA certificates: real issuers' encodings (v1 roots, AIA
	// with several methods, unusual extensions)
	files, _ := filepath.Glob("/etc/ssl/certs/*.pem")
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for blk, rest := pem.Decode(b); blk != nil; blk, rest = pem.Decode(rest) {
			checkOCSP(t, f, blk.Bytes)
			n++
		}
	}
	t.Logf("%d system certificates compared", n)
	if _, ok := ocspServers([]byte("not a certificate")); ok {
		t.Error("ocspServers accepted bytes that are not DER")
	}
}

func FuzzOCSPServers(f *testing.F) {
	f.Add(makeCert(f, []string{"http://ocsp.example.org"}, []string{"http://ca.example.org"}, false))
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, der []byte) { checkOCSP(t, "fuzz input", der) })
}

// TestStapling: the decision and its reason, from a certificate file and a
// resolv.conf.
func TestStapling(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	withOCSP := write("ocsp.pem", makeCert(t, []string{"http://r3.o.example.net"}, nil, false))
	without := write("plain.pem", makeCert(t, nil, []string{"http://ca.example.org"}, false))
	resolv := filepath.Join(dir, "resolv.conf")
	os.WriteFile(resolv, []byte("# comment\nnameserver 10.0.0.2\nnameserver fd00::53\nsearch example.org\n"), 0o600)
	empty := filepath.Join(dir, "empty.conf")
	os.WriteFile(empty, []byte("search example.org\n"), 0o600)

	rs, why := stapling(withOCSP, resolv)
	if !slices.Equal(rs, []string{"10.0.0.2", "[fd00::53]"}) || !strings.Contains(why, "http://r3.o.example.net") {
		t.Errorf("with a responder and resolvers: %q, %q", rs, why)
	}
	if rs, why := stapling(withOCSP, empty); rs != nil || !strings.Contains(why, "gives no resolver") {
		t.Errorf("with a responder, no resolver: %q, %q", rs, why)
	}
	if rs, why := stapling(without, resolv); rs != nil || !strings.Contains(why, "names no OCSP responder") {
		t.Errorf("without a responder: %q, %q", rs, why)
	}
	if rs, why := stapling(filepath.Join(dir, "missing.pem"), resolv); rs != nil || why != "" {
		t.Errorf("a missing certificate: %q, %q", rs, why)
	}
}
