package spdy

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDictionary: the dictionary built from its words is SPDY/3's, byte
// for byte (the SHA-256 of the spec's 1423 bytes).
func TestDictionary(t *testing.T) {
	d := dictionary()
	assert.Len(t, d, 1423)
	sum := sha256.Sum256(d)
	assert.Equal(t, "51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02", hex.EncodeToString(sum[:]))
}

// client writes frames as a SPDY client does, its header blocks in one
// compression context.
type client struct {
	buf  bytes.Buffer
	zbuf bytes.Buffer
	zw   *zlib.Writer
}

func newClient() *client {
	c := &client{}
	c.zw, _ = zlib.NewWriterLevelDict(&c.zbuf, zlib.DefaultCompression, dictionary())
	return c
}

func (c *client) control(typ uint16, flags byte, payload []byte) {
	c.buf.Write([]byte{0x80, 3, byte(typ >> 8), byte(typ)})
	c.buf.Write(binary.BigEndian.AppendUint32(nil, uint32(flags)<<24|uint32(len(payload))))
	c.buf.Write(payload)
}

func (c *client) synStream(id uint32, headers map[string]string) {
	c.zbuf.Reset()
	block := binary.BigEndian.AppendUint32(nil, uint32(len(headers)))
	for _, k := range []string{"streamtype", "x-other"} {
		if v, ok := headers[k]; ok {
			block = binary.BigEndian.AppendUint32(block, uint32(len(k)))
			block = append(block, k...)
			block = binary.BigEndian.AppendUint32(block, uint32(len(v)))
			block = append(block, v...)
		}
	}
	c.zw.Write(block)
	c.zw.Flush()
	payload := binary.BigEndian.AppendUint32(nil, id)
	payload = append(payload, 0, 0, 0, 0, 0, 0) // associated stream, priority, slot
	c.control(typeSynStream, 0, append(payload, c.zbuf.Bytes()...))
}

// rw is a connection: what the client sent to read, and what the server
// wrote.
type rw struct {
	in  io.Reader
	out bytes.Buffer
}

func (c *rw) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c *rw) Write(p []byte) (int, error) { return c.out.Write(p) }

// TestAccept: streams come with their headers, across header blocks of one
// compression context; a ping between them is answered, settings and data
// dropped; each stream is answered with SYN_REPLY; GOAWAY ends.
func TestAccept(t *testing.T) {
	c := newClient()
	c.control(typeSettings, 0, make([]byte, 4))
	c.synStream(1, map[string]string{"streamtype": "error"})
	c.control(typePing, 0, []byte{0, 0, 0, 7})
	c.buf.Write([]byte{0, 0, 0, 1, 0, 0, 0, 2, 'h', 'i'}) // data on stream 1
	c.synStream(3, map[string]string{"streamtype": "stdout", "x-other": "a\x00b"})
	c.control(typeGoAway, 0, make([]byte, 8))
	conn := &rw{in: bytes.NewReader(c.buf.Bytes())}
	s := NewConn(conn, "v4.channel.k8s.io")

	st, err := s.Accept()
	require.NoError(t, err)
	assert.Equal(t, Stream{ID: 1, Headers: http.Header{"Streamtype": {"error"}}}, st)
	st, err = s.Accept()
	require.NoError(t, err)
	assert.Equal(t, Stream{ID: 3, Headers: http.Header{"Streamtype": {"stdout"}, "X-Other": {"a", "b"}}}, st)
	_, err = s.Accept()
	assert.ErrorIs(t, err, io.EOF)

	require.NoError(t, s.Write(3, []byte("out"), true))
	// What the server wrote: SYN_REPLY 1, the pong, SYN_REPLY 3, the data.
	out := conn.out.Bytes()
	frameTypes := []uint16{}
	for len(out) >= 8 {
		n := int(binary.BigEndian.Uint32(out[4:8]) & 0xFFFFFF)
		if out[0]&0x80 != 0 {
			frameTypes = append(frameTypes, binary.BigEndian.Uint16(out[2:4]))
		} else {
			assert.Equal(t, []byte{0, 0, 0, 3, flagFin, 0, 0, 3, 'o', 'u', 't'}, out[:8+n])
			frameTypes = append(frameTypes, 0)
		}
		out = out[8+n:]
	}
	assert.Equal(t, []uint16{typeSynReply, typePing, typeSynReply, 0}, frameTypes)
}

// FuzzAccept feeds the frame reader any bytes after a valid stream: it
// never panics and never loops without reading.
func FuzzAccept(f *testing.F) {
	c := newClient()
	c.synStream(1, map[string]string{"streamtype": "error"})
	f.Add(c.buf.Bytes())
	f.Add([]byte{0x80, 3, 0, 1, 0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		s := NewConn(&rw{in: bytes.NewReader(in)}, "")
		for range 100 {
			if _, err := s.Accept(); err != nil {
				return
			}
		}
	})
}
