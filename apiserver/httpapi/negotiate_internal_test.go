package httpapi

import (
	"bytes"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api/protobuf"
)

// parseAcceptPlain is parseAccept as it was before it stopped allocating
// for entries without parameters: the reference its answers must match.
func parseAcceptPlain(accept string) []mediaType {
	var out []mediaType
	for part := range strings.SplitSeq(accept, ",") {
		fields := strings.Split(part, ";")
		mt := mediaType{typ: strings.ToLower(strings.TrimSpace(fields[0])), params: map[string]string{}}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			mt.params[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if mt.typ != "" {
			out = append(out, mt)
		}
	}
	return out
}

func TestParseAcceptMatchesThePlainParse(t *testing.T) {
	for _, accept := range []string{
		"application/json",
		"application/json, */*",
		"application/vnd.kubernetes.protobuf, */*",
		"application/vnd.kubernetes.protobuf;stream=watch",
		"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
		"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
		" Application/JSON ; q=0.9 , text/plain;;x , ;a=b, ,",
		"a;",
		"a;=;b",
		"",
	} {
		t.Run(accept, func(t *testing.T) {
			got, want := parseAccept(accept), parseAcceptPlain(accept)
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, want[i].typ, got[i].typ)
				assert.Equal(t, len(want[i].params), len(got[i].params))
				for k, v := range want[i].params {
					assert.Equal(t, v, got[i].params[k], "param %q", k)
				}
			}
		})
	}
}

func TestParseAcceptAllocatesNoParamsForPlainEntries(t *testing.T) {
	for _, mt := range parseAccept("application/vnd.kubernetes.protobuf, */*") {
		assert.Nil(t, mt.params, mt.typ)
	}
	allocs := testing.AllocsPerRun(100, func() { _ = parseAccept("application/json, */*") })
	assert.Equal(t, 1.0, allocs, "only the result slice")
}

// bodyFormat's answers for the exact Content-Types client-go sends are
// those of parsing them.
func TestBodyFormatOfClientGoTypesIsTheParsedOne(t *testing.T) {
	for _, ct := range []string{"application/json", protobuf.MediaType} {
		t.Run(ct, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Header.Set("Content-Type", ct)
			got, err := bodyFormat(r)
			require.NoError(t, err)
			mt, _, err := mime.ParseMediaType(ct)
			require.NoError(t, err)
			want := formatJSON
			if mt == protobuf.MediaType {
				want = formatProtobuf
			}
			assert.Equal(t, want, got)
			r.Header.Set("Content-Type", ct+"; charset=utf-8") // the parsed way
			got, err = bodyFormat(r)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestQueryOfReadsAsTheParsedQuery(t *testing.T) {
	for _, target := range []string{"/api/v1/pods", "/api/v1/pods?", "/api/v1/pods?watch=1&fieldManager=m&dryRun=All&dryRun=x"} {
		t.Run(target, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, target, nil)
			want, got := r.URL.Query(), queryOf(r)
			assert.Equal(t, len(want), len(got))
			for _, k := range []string{"watch", "fieldManager", "dryRun", "absent"} {
				assert.Equal(t, want[k], got[k], k)
				assert.Equal(t, want.Get(k), got.Get(k), k)
				assert.Equal(t, want.Has(k), got.Has(k), k)
			}
		})
	}
}

func TestReadBodyOfKnownLengthIsTheWholeBodyInOneAllocation(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		contentLength int64 // -1: unknown, as a chunked body's
	}{
		{"known length", strings.Repeat("x", 1500), 1500},
		{"unknown length", strings.Repeat("y", 1500), -1},
		{"longer than said: the buffer grows", strings.Repeat("w", 1500), 10},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			r.ContentLength = tt.contentLength
			got, err := readBody(r)
			require.NoError(t, err)
			assert.Equal(t, tt.body, string(got))
		})
	}
	body := bytes.Repeat([]byte("z"), 1500)
	src := bytes.NewReader(body)
	r := &http.Request{Body: nopCloser{src}, ContentLength: int64(len(body))}
	allocs := testing.AllocsPerRun(50, func() {
		src.Reset(body)
		_, _ = readBody(r)
	})
	assert.Equal(t, 1.0, allocs, "the buffer alone")
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }
