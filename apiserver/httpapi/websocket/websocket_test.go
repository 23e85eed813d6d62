package websocket_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/apiserver/httpapi/websocket"
)

var mask = [4]byte{0x37, 0xfa, 0x21, 0x3d}

func masked(f websocket.Frame) []byte { return websocket.AppendMaskedFrame(nil, f, mask) }

func TestReadFrame(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 70000)
	tests := []struct {
		name    string
		in      []byte
		want    websocket.Frame
		wantErr string
	}{
		// RFC 6455 section 5.7's example: a masked "Hello".
		{"rfc example", []byte{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}, websocket.Frame{Fin: true, Op: websocket.OpText, Payload: []byte("Hello")}, ""},
		{"16-bit length", masked(websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: long[:300]}), websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: long[:300]}, ""},
		{"64-bit length", masked(websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: long}), websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: long}, ""},
		{"a fragment", masked(websocket.Frame{Op: websocket.OpText, Payload: []byte("He")}), websocket.Frame{Op: websocket.OpText, Payload: []byte("He")}, ""},
		{"unmasked", websocket.AppendFrame(nil, websocket.Frame{Fin: true, Op: websocket.OpText, Payload: []byte("a")}), websocket.Frame{}, "not masked"},
		{"reserved bit", []byte{0xC1, 0x80, 0, 0, 0, 0}, websocket.Frame{}, "reserved bits"},
		{"reserved opcode", []byte{0x83, 0x80, 0, 0, 0, 0}, websocket.Frame{}, "reserved opcode"},
		{"fragmented ping", []byte{0x09, 0x80, 0, 0, 0, 0}, websocket.Frame{}, "control frame"},
		{"long ping", masked(websocket.Frame{Fin: true, Op: websocket.OpPing, Payload: long[:126]}), websocket.Frame{}, "control frame"},
		{"over the limit", masked(websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: long[:2000]}), websocket.Frame{}, "a message over"},
		{"cut short", []byte{0x81, 0x85, 0x37, 0xfa}, websocket.Frame{}, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := websocket.MaxMessage
			if tt.name == "over the limit" {
				limit = 1000
			}
			f, err := websocket.ReadFrame(bytes.NewReader(tt.in), limit)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f)
		})
	}
}

// pipe is a Conn's server end over an in-memory duplex: what the client
// sends, and a buffer of what the server wrote.
type pipe struct {
	io.Reader
	out bytes.Buffer
}

func (p *pipe) Write(b []byte) (int, error) { return p.out.Write(b) }

// serverFrames decodes what the server wrote.
func serverFrames(t *testing.T, b []byte) []websocket.Frame {
	var out []websocket.Frame
	r := bytes.NewReader(b)
	for {
		f, err := websocket.ReadServerFrame(r, websocket.MaxMessage)
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, f)
	}
}

func TestReadMessage(t *testing.T) {
	tests := []struct {
		name     string
		frames   [][]byte
		wantOp   websocket.Opcode
		wantData string
		wantErr  error
		// wantSent are the frames the server answered with.
		wantSent []websocket.Frame
	}{
		{"one frame", [][]byte{masked(websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: []byte("\x00ls\n")})}, websocket.OpBinary, "\x00ls\n", nil, nil},
		{"fragments joined, a ping between answered", [][]byte{
			masked(websocket.Frame{Op: websocket.OpText, Payload: []byte("Hel")}),
			masked(websocket.Frame{Fin: true, Op: websocket.OpPing, Payload: []byte("p")}),
			masked(websocket.Frame{Fin: true, Op: websocket.OpContinuation, Payload: []byte("lo")}),
		}, websocket.OpText, "Hello", nil, []websocket.Frame{{Fin: true, Op: websocket.OpPong, Payload: []byte("p")}}},
		{"pong skipped", [][]byte{
			masked(websocket.Frame{Fin: true, Op: websocket.OpPong}),
			masked(websocket.Frame{Fin: true, Op: websocket.OpText, Payload: []byte("x")}),
		}, websocket.OpText, "x", nil, nil},
		{"close answered", [][]byte{masked(websocket.Frame{Fin: true, Op: websocket.OpClose, Payload: []byte{0x03, 0xe8}})},
			0, "", io.EOF, []websocket.Frame{{Fin: true, Op: websocket.OpClose, Payload: []byte{0x03, 0xe8}}}},
		{"continuation first", [][]byte{masked(websocket.Frame{Fin: true, Op: websocket.OpContinuation, Payload: []byte("x")})},
			0, "", &websocket.ProtocolError{}, []websocket.Frame{{Fin: true, Op: websocket.OpClose, Payload: append([]byte{0x03, 0xea}, "unexpected continuation"...)}}},
		{"unmasked closes with 1002", [][]byte{websocket.AppendFrame(nil, websocket.Frame{Fin: true, Op: websocket.OpText, Payload: []byte("x")})},
			0, "", &websocket.ProtocolError{}, []websocket.Frame{{Fin: true, Op: websocket.OpClose, Payload: append([]byte{0x03, 0xea}, "a client's frame is not masked"...)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pipe{Reader: bytes.NewReader(bytes.Join(tt.frames, nil))}
			c := websocket.NewConn(p, "")
			op, data, err := c.ReadMessage()
			switch want := tt.wantErr.(type) {
			case nil:
				require.NoError(t, err)
				assert.Equal(t, tt.wantOp, op)
				assert.Equal(t, tt.wantData, string(data))
			case *websocket.ProtocolError:
				var pe *websocket.ProtocolError
				assert.True(t, errors.As(err, &pe), "got %v", err)
			default:
				assert.ErrorIs(t, err, want)
			}
			assert.Equal(t, tt.wantSent, serverFrames(t, p.out.Bytes()))
		})
	}
}

func TestCheck(t *testing.T) {
	good := http.Header{
		"Upgrade": {"websocket"}, "Connection": {"keep-alive, Upgrade"},
		"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="},
	}
	with := func(k, v string) http.Header {
		h := good.Clone()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	tests := []struct {
		name     string
		method   string
		header   http.Header
		want     string
		wantCode int
	}{
		{"no protocol asked", http.MethodGet, good, "", 0},
		{"the client's first supported", http.MethodGet, with("Sec-Websocket-Protocol", "v9.channel.k8s.io, v4.channel.k8s.io, v5.channel.k8s.io"), websocket.ChannelV4, 0},
		{"none supported", http.MethodGet, with("Sec-Websocket-Protocol", "v9.channel.k8s.io"), "", http.StatusForbidden},
		{"not a websocket", http.MethodGet, with("Upgrade", "SPDY/3.1"), "", http.StatusBadRequest},
		{"POST", http.MethodPost, good, "", http.StatusBadRequest},
		{"old version", http.MethodGet, with("Sec-Websocket-Version", "8"), "", http.StatusBadRequest},
		{"bad key", http.MethodGet, with("Sec-Websocket-Key", "c2hvcnQ="), "", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/", nil)
			r.Header = tt.header
			p, err := websocket.Check(r, websocket.ChannelProtocols)
			if tt.wantCode != 0 {
				var he *websocket.HandshakeError
				require.True(t, errors.As(err, &he), "got %v", err)
				assert.Equal(t, tt.wantCode, he.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
		})
	}
}

// TestUpgrade does the opening handshake over a real connection: the 101
// answer with RFC 6455's accept key for its example nonce and the
// negotiated subprotocol, then a message each way.
func TestUpgrade(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := websocket.Check(r, websocket.ChannelProtocols)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c, err := websocket.Upgrade(w, r, p)
		if err != nil {
			return
		}
		defer c.Close(websocket.CloseNormal, "")
		m, err := c.ReadStream()
		if err == nil {
			_ = c.WriteStream(websocket.StreamStdout, append([]byte("got "), m.Data...))
		}
	}))
	defer srv.Close()
	nc, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer nc.Close()
	_, err = io.WriteString(nc, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	assert.Equal(t, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", resp.Header.Get("Sec-WebSocket-Accept"))
	assert.Equal(t, websocket.ChannelV4, resp.Header.Get("Sec-WebSocket-Protocol"))

	_, err = nc.Write(masked(websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: []byte("\x00hi")}))
	require.NoError(t, err)
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	assert.Equal(t, []websocket.Frame{
		{Fin: true, Op: websocket.OpBinary, Payload: []byte("\x01got hi")},
		{Fin: true, Op: websocket.OpClose, Payload: []byte{0x03, 0xe8}},
	}, serverFrames(t, rest))
}

func TestDecodeStream(t *testing.T) {
	tests := []struct {
		name     string
		protocol string
		msg      string
		want     websocket.StreamMessage
		wantOK   bool
		wantErr  bool
	}{
		{"empty skipped", websocket.ChannelV4, "", websocket.StreamMessage{}, false, false},
		{"binary stdin", websocket.ChannelV4, "\x00ls\n", websocket.StreamMessage{Stream: 0, Data: []byte("ls\n")}, true, false},
		{"base64 stdin", websocket.ChannelV4Base64, "0bHMK", websocket.StreamMessage{Stream: 0, Data: []byte("ls\n")}, true, false},
		{"bad base64", websocket.ChannelV1Base64, "0!!", websocket.StreamMessage{}, false, true},
		{"v5 close of stdin", websocket.ChannelV5, "\xff\x00", websocket.StreamMessage{Stream: 0, Closed: true}, true, false},
		{"v5 close without its stream", websocket.ChannelV5, "\xff", websocket.StreamMessage{}, false, true},
		{"255 is a stream in v4", websocket.ChannelV4, "\xff\x00", websocket.StreamMessage{Stream: 255, Data: []byte{0}}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok, err := websocket.DecodeStream(tt.protocol, []byte(tt.msg))
			if tt.wantErr {
				assert.ErrorIs(t, err, websocket.ErrBadStreamMessage)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOK, ok)
			if ok {
				assert.Equal(t, tt.want, m)
			}
		})
	}
}

// FuzzReadFrame feeds the decoder any bytes: it never panics, never
// returns a payload over its limit, and a frame it reads reads back the
// same once masked and encoded again.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58})
	f.Add(masked(websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: bytes.Repeat([]byte("y"), 200)}))
	f.Add([]byte{0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8})
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 4096
		fr, err := websocket.ReadFrame(bytes.NewReader(in), limit)
		if err != nil {
			return
		}
		require.LessOrEqual(t, len(fr.Payload), limit)
		again, err := websocket.ReadFrame(bytes.NewReader(masked(fr)), limit)
		require.NoError(t, err)
		assert.Equal(t, fr.Fin, again.Fin)
		assert.Equal(t, fr.Op, again.Op)
		assert.Equal(t, len(fr.Payload), len(again.Payload))
		assert.True(t, bytes.Equal(fr.Payload, again.Payload))
	})
}

// FuzzDecodeStream feeds the stream decoder any message under each
// protocol: it never panics, and base64 data it accepts encodes back.
func FuzzDecodeStream(f *testing.F) {
	f.Add("\x00ls\n")
	f.Add("0bHMK")
	f.Add("\xff\x01")
	f.Fuzz(func(t *testing.T, msg string) {
		for _, p := range websocket.ChannelProtocols {
			m, ok, err := websocket.DecodeStream(p, []byte(msg))
			if err != nil || !ok || m.Closed {
				continue
			}
			if !websocket.IsBase64(p) {
				assert.Equal(t, msg[1:], string(m.Data))
			}
		}
	})
}
