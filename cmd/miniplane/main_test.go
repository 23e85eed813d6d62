package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunCommandLine covers what each mistake on the command line gets:
// a usage error (exit status 2) with a message that names the problem.
func TestRunCommandLine(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantUsage  bool     // the error is a usage error (exit status 2)
		wantErr    string   // substring of the error, if any
		wantOut    []string // substrings of stdout
		wantStderr []string // substrings of stderr
	}{
		{name: "no command", args: nil, wantUsage: true, wantErr: "no command given", wantStderr: []string{"Usage:"}},
		{name: "help", args: []string{"help"}, wantOut: []string{"Usage:", "demo", "serve", "sim"}},
		{name: "unknown command", args: []string{"frobnicate"}, wantUsage: true, wantErr: `unknown command "frobnicate"`},
		{name: "demo bad flag", args: []string{"demo", "--nope"}, wantUsage: true, wantErr: "flag provided but not defined: -nope"},
		{name: "demo pace out of range", args: []string{"demo", "--pace=-1"}, wantUsage: true, wantErr: "--pace must be between 0 and 20, got -1"},
		{name: "demo bad colour", args: []string{"demo", "--color=pink"}, wantUsage: true, wantErr: `--color must be auto, always or never, got "pink"`},
		{name: "demo stray argument", args: []string{"demo", "extra"}, wantUsage: true, wantErr: "unexpected arguments: [extra]"},
		{name: "demo help", args: []string{"demo", "-h"}, wantStderr: []string{"-pace", "-seed", "-keep-running", "-color", "-v"}},
		{name: "serve help", args: []string{"serve", "-h"}, wantStderr: []string{"-addr", "-instances", "-nodes", "-token", "-kubeconfig", "-leader-elect-lease-duration", "-leader-elect-resource-name", "-concurrent-rc-syncs", "-controllers"}},
		{name: "serve bad flag", args: []string{"serve", "--port=1"}, wantUsage: true, wantErr: "flag provided but not defined: -port"},
		{name: "serve unknown fault", args: []string{"serve", "--faults=gone,flood"}, wantUsage: true, wantErr: `--faults: faults: unknown fault "flood" in "gone,flood"`},
		{name: "serve fault rate out of range", args: []string{"serve", "--faults=all", "--fault-rate=1.5"}, wantUsage: true, wantErr: "--fault-rate must be in (0, 1], got 1.5"},
		{name: "serve unknown controller", args: []string{"serve", "--controllers=attachdetach"}, wantUsage: true, wantErr: `--controllers: "attachdetach" is not a known controller`},
		{name: "serve renew deadline too long", args: []string{"serve", "--leader-elect-renew-deadline=20s"}, wantUsage: true, wantErr: "--leader-elect-lease-duration (15s) must be greater than --leader-elect-renew-deadline (20s)"},
		{name: "serve negative nodes", args: []string{"serve", "--nodes=-1"}, wantUsage: true, wantErr: "--nodes must be at least 0, got -1"},
		{name: "serve too many nodes", args: []string{"serve", "--nodes=4000"}, wantUsage: true, wantErr: "--nodes must be between 0 and 3072, got 4000"},
		{name: "serve several unelected instances", args: []string{"serve", "--leader-elect=false", "--instances=2"}, wantUsage: true, wantErr: "use --instances=1"},
		{name: "serve no instances", args: []string{"serve", "--instances=0"}, wantUsage: true, wantErr: "--instances must be at least 1, got 0"},
		{name: "serve bad node port range", args: []string{"serve", "--service-node-port-range=32767-30000"}, wantUsage: true, wantErr: `invalid argument "32767-30000" for --service-node-port-range: end port cannot be less than start port: 32767-30000`},
		{name: "serve empty node port range", args: []string{"serve", "--service-node-port-range="}, wantUsage: true, wantErr: "--service-node-port-range must not be empty"},
		{name: "serve unknown authorization mode", args: []string{"serve", "--authorization-mode=Webhook"}, wantUsage: true, wantErr: `--authorization-mode must be AlwaysAllow or RBAC, got "Webhook"`},
		{name: "serve RBAC without a token", args: []string{"serve", "--authorization-mode=RBAC"}, wantUsage: true, wantErr: "--authorization-mode=RBAC needs --token"},
		{name: "serve bad address", args: []string{"serve", "--addr=127.0.0.1:notaport"}, wantErr: "listening on 127.0.0.1:notaport"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tt.args, &stdout, &stderr)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var ue usageError
				assert.Equal(t, tt.wantUsage, errors.As(err, &ue), "usage error (exit 2)")
			} else {
				require.NoError(t, err)
			}
			for _, s := range tt.wantOut {
				assert.Contains(t, stdout.String(), s)
			}
			for _, s := range tt.wantStderr {
				assert.Contains(t, stderr.String(), s)
			}
		})
	}
}
