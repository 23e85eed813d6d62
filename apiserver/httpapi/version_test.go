package httpapi

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNewVersionInfo checks that /version reports the binary it is given:
// its Go version and platform always, its commit, tree state and commit time
// when the toolchain stamped them, and Kubernetes' unstamped defaults when not.
func TestNewVersionInfo(t *testing.T) {
	stamped := func(settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/miniplane/miniplane/cmd/miniplane", Settings: settings}
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want versionInfo
	}{
		{
			name: "no build information",
			bi:   nil,
			want: versionInfo{BuildDate: "1970-01-01T00:00:00Z"},
		},
		{
			name: "built outside a checkout (go test, go run of a module)",
			bi:   stamped(debug.BuildSetting{Key: "GOARCH", Value: "arm64"}, debug.BuildSetting{Key: "-compiler", Value: "gc"}),
			want: versionInfo{BuildDate: "1970-01-01T00:00:00Z"},
		},
		{
			name: "clean checkout",
			bi: stamped(
				debug.BuildSetting{Key: "vcs", Value: "git"},
				debug.BuildSetting{Key: "vcs.revision", Value: "b94ec25e1f0c8f7a6d0b7c8e9f00112233445566"},
				debug.BuildSetting{Key: "vcs.time", Value: "2026-11-21T10:04:05Z"},
				debug.BuildSetting{Key: "vcs.modified", Value: "false"},
			),
			want: versionInfo{GitCommit: "b94ec25e1f0c8f7a6d0b7c8e9f00112233445566", GitTreeState: "clean", BuildDate: "2026-11-21T10:04:05Z"},
		},
		{
			name: "checkout with uncommitted changes",
			bi: stamped(
				debug.BuildSetting{Key: "vcs.revision", Value: "0123abcd"},
				debug.BuildSetting{Key: "vcs.time", Value: "2025-02-03T04:05:06Z"},
				debug.BuildSetting{Key: "vcs.modified", Value: "true"},
			),
			want: versionInfo{GitCommit: "0123abcd", GitTreeState: "dirty", BuildDate: "2025-02-03T04:05:06Z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			want.Major, want.Minor, want.GitVersion = "1", "32", "v1.32.0-miniplane"
			want.GoVersion, want.Compiler, want.Platform = "go1.99.1", "gccgo", "plan9/386"
			assert.Equal(t, want, newVersionInfo(tt.bi, "go1.99.1", "gccgo", "plan9/386"))
		})
	}
}
