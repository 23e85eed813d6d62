package apiserver

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pathSegmentMsgs is the reference the DNS rules are held to: the name
// rule of RBAC objects (Kubernetes: path.IsValidPathSegmentName), which the
// DNS rules used to run after their DNS check.
var pathSegmentMsgs = nameIsPathSegment

// TestNameRulesArePathSegments checks that each name rule gives what it
// gave when it also ran the path-segment check after its DNS check: the
// DNS messages when there are any, else the path-segment ones. Names are
// every string of up to four characters over an alphabet of the characters
// either check cares about, then random longer ones.
func TestNameRulesArePathSegments(t *testing.T) {
	rules := []struct {
		name string
		rule nameFunc
		dns  func(string) []string
	}{
		{name: "DNS subdomain", rule: nameIsDNSSubdomain, dns: dns1123SubdomainMsgs},
		{name: "DNS label", rule: nameIsDNSLabel, dns: dns1123LabelMsgs},
		{name: "DNS-1035 label", rule: nameIsDNS1035Label, dns: dns1035LabelMsgs},
	}
	const alphabet = "a0-./%A"
	names := []string{""}
	for n, from := 0, 0; n < 4; n++ {
		to := len(names)
		for _, s := range names[from:to] {
			for _, c := range alphabet {
				names = append(names, s+string(c))
			}
		}
		from = to
	}
	rng := rand.New(rand.NewPCG(18, 3))
	for range 5000 {
		b := make([]byte, 5+rng.IntN(70))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		names = append(names, string(b))
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			valid := 0
			for _, name := range names {
				for _, prefix := range []bool{false, true} {
					masked := name
					if prefix {
						masked = maskTrailingDash(name)
					}
					want := r.dns(masked)
					if want == nil {
						want = pathSegmentMsgs(masked, prefix)
						valid++
					}
					require.Equal(t, want, r.rule(name, prefix), "%q, prefix %v", name, prefix)
				}
			}
			assert.Greater(t, valid, 30, "names that pass the DNS check, where the path-segment one would run")
		})
	}
}
