package generate

import (
	"encoding/asn1"
)

// The few ASN.1 structures of an X.509 certificate (RFC 5280, 4.1) that
// lead to its OCSP responders, read with encoding/asn1 so that gen's
// stapling decision does not link crypto/x509 (and with it every signature
// algorithm) into each run of the program.
type certificate struct {
	TBS          tbsCertificate
	SigAlgorithm asn1.RawValue
	Signature    asn1.BitString
}

type tbsCertificate struct {
	Version         int `asn1:"optional,explicit,default:0,tag:0"`
	Serial          asn1.RawValue
	SigAlgorithm    asn1.RawValue
	Issuer          asn1.RawValue
	Validity        asn1.RawValue
	Subject         asn1.RawValue
	PublicKey       asn1.RawValue
	IssuerUniqueID  asn1.BitString `asn1:"optional,tag:1"`
	SubjectUniqueID asn1.BitString `asn1:"optional,tag:2"`
	Extensions      []extension    `asn1:"optional,explicit,tag:3"`
}

type extension struct {
	ID       asn1.ObjectIdentifier
	Critical bool `asn1:"optional"`
	Value    []byte
}

// accessDescription is one entry of the Authority Information Access
// extension (RFC 5280, 4.2.2.1).
type accessDescription struct {
	Method   asn1.ObjectIdentifier
	Location asn1.RawValue
}

var (
	oidAuthorityInfoAccess = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 1}
	oidAccessOCSP          = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1}
)

// ocspServers returns the OCSP responder URLs a DER certificate names in
// its Authority Information Access extension, as crypto/x509's
// Certificate.OCSPServer does; ok is false when der is not a certificate.
func ocspServers(der []byte) (urls []string, ok bool) {
	var c certificate
	rest, err := asn1.Unmarshal(der, &c)
	if err != nil || len(rest) > 0 {
		return nil, false
	}
	for _, e := range c.TBS.Extensions {
		if !e.ID.Equal(oidAuthorityInfoAccess) {
			continue
		}
		var ads []accessDescription
		if rest, err := asn1.Unmarshal(e.Value, &ads); err != nil || len(rest) > 0 {
			return nil, false
		}
		for _, ad := range ads {
			// a uniformResourceIdentifier GeneralName: [6] IA5String
			if ad.Method.Equal(oidAccessOCSP) && ad.Location.Class == asn1.ClassContextSpecific && ad.Location.Tag == 6 {
				urls = append(urls, string(ad.Location.Bytes))
			}
		}
	}
	return urls, true
}
