package apiserver

import (
	"strings"
	"testing"

	"github.com/miniplane/miniplane/api/apierrors"
)

// FuzzDecodeContinue feeds arbitrary continue tokens, which come from
// clients, to the decoder: it must never panic, must reject what it cannot
// use with a BadRequest, and a token it accepts must name a key below the
// list's prefix (no escape with "..", no absolute key) and a usable revision.
// Tokens it makes itself always decode to what was encoded.
func FuzzDecodeContinue(f *testing.F) {
	f.Add(encodeContinue(42, "default/web-1"))
	f.Add(encodeContinue(-1, "ns/name"))
	f.Add("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi9ldGMvcGFzc3dkXHUwMDAwIn0")
	f.Add("")
	f.Add("not base64 at all!")
	f.Fuzz(func(t *testing.T, token string) {
		rev, start, err := decodeContinue(token)
		if err != nil {
			if !apierrors.IsBadRequest(err) {
				t.Fatalf("error %v is not a BadRequest", err)
			}
			return
		}
		if rev < 0 || start == "" || strings.Contains(start, "..") || strings.HasPrefix(start, "/") {
			t.Fatalf("accepted an unusable token: rev %d, start %q", rev, start)
		}
		again := encodeContinue(max(rev, 1), start)
		if r2, s2, err := decodeContinue(again); err != nil || s2 != start || r2 != max(rev, 1) {
			t.Fatalf("round trip of (%d, %q) gave (%d, %q, %v)", rev, start, r2, s2, err)
		}
	})
}
