package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantUsage  bool     // the error is a usage error (exit status 2)
		wantErr    string   // substring of the error, if any
		wantOut    []string // substrings of stdout
		wantStderr []string // substrings of stderr
	}{
		{name: "no command", args: nil, wantUsage: true, wantErr: "no command given", wantStderr: []string{"Usage:"}},
		{name: "help", args: []string{"help"}, wantOut: []string{"Usage:", "demo", "Not built yet"}},
		{name: "unknown command", args: []string{"frobnicate"}, wantUsage: true, wantErr: `unknown command "frobnicate"`},
		{name: "serve is not built yet", args: []string{"serve"}, wantUsage: true, wantErr: `"serve" is not built yet`},
		{name: "demo bad flag", args: []string{"demo", "--nope"}, wantUsage: true, wantErr: "flag provided but not defined: -nope"},
		{name: "demo window too small", args: []string{"demo", "-history=2"}, wantUsage: true, wantErr: "-history must be at least 4, got 2"},
		{name: "demo stray argument", args: []string{"demo", "extra"}, wantUsage: true, wantErr: "unexpected arguments: [extra]"},
		{name: "demo help", args: []string{"demo", "-h"}, wantStderr: []string{"-history", "-v"}},
		{
			name: "demo tells the whole store story",
			args: []string{"demo"},
			wantOut: []string{
				"The store starts empty at revision 1.",
				"create pod web-3  -> revision 4",
				"update web-1 again, still expecting 2 -> refused: store: revision conflict",
				"Deleted web-2  at revision 6",
				"It is now caught up through revision 6",
				"web-2  phase=Pending (resourceVersion 3)",
				"now at revision 16; the oldest readable revision is 9",
				"watch from revision 4 -> store: required revision 4 has been compacted",
			},
		},
		{name: "demo -v logs operations", args: []string{"demo", "-v"}, wantStderr: []string{"demo\tcreate", `"rev": 2`}},
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

func TestDemoIsQuietWithoutVerbose(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"demo"}, &stdout, &stderr))
	assert.Empty(t, stderr.String(), "no log lines unless -v")
}
