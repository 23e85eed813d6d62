package serviceaccount

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestMissing(t *testing.T) {
	ns := func(phase api.NamespacePhase) *api.Namespace {
		return &api.Namespace{Metadata: api.ObjectMeta{Name: "x"}, Status: api.NamespaceStatus{Phase: phase}}
	}
	tests := []struct {
		name   string
		ns     *api.Namespace
		wanted []string
		have   []string
		want   []string
	}{
		{"active namespace without the account", ns(api.NamespaceActive), []string{"default"}, nil, []string{"default"}},
		{"active namespace with it", ns(api.NamespaceActive), []string{"default"}, []string{"default"}, nil},
		{"other accounts do not count", ns(api.NamespaceActive), []string{"default"}, []string{"builder"}, []string{"default"}},
		{"terminating namespace gets nothing", ns(api.NamespaceTerminating), []string{"default"}, nil, nil},
		{"namespace with no phase yet gets nothing", ns(""), []string{"default"}, nil, nil},
		{"deleted namespace gets nothing", nil, []string{"default"}, nil, nil},
		{"several wanted, in their order", ns(api.NamespaceActive), []string{"default", "b", "a"}, []string{"b"}, []string{"default", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			has := func(name string) bool {
				for _, h := range tt.have {
					if h == name {
						return true
					}
				}
				return false
			}
			assert.Equal(t, tt.want, Missing(tt.ns, tt.wanted, has))
		})
	}
}
