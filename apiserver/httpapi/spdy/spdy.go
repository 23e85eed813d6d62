// Package spdy is the server side of SPDY/3.1 as Kubernetes' streaming
// subresources use it (k8s.io/apimachinery's httpstream/spdy over
// moby/spdystream): the HTTP upgrade with its stream-protocol negotiation,
// then streams the client opens (SYN_STREAM, each answered with
// SYN_REPLY) and the server writes to (data frames, FIN to end one); pings
// are answered; flow control is not enforced (the streams here are a
// command's short output). Header blocks are zlib-compressed with SPDY's
// dictionary, one compression context per direction.
//
// client-go's SPDY executor (remotecommand.NewSPDYExecutor, which
// Kubernetes' e2e framework uses for exec) speaks only this. It imports
// only the standard library.
//
// Concurrency: a Conn's writes are serialized by a mutex; Accept is called
// from one goroutine.
package spdy

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The frame types and flags this server reads or writes.
const (
	typeSynStream    = 1
	typeSynReply     = 2
	typeRstStream    = 3
	typeSettings     = 4
	typePing         = 6
	typeGoAway       = 7
	typeHeaders      = 8
	typeWindowUpdate = 9

	flagFin = 0x01
)

// MaxFrame bounds a frame the client sends.
const MaxFrame = 1 << 20

// HeaderProtocolVersion is the header in which the client offers, and the
// server answers, the stream protocols (httpstream.HeaderProtocolVersion).
const HeaderProtocolVersion = "X-Stream-Protocol-Version"

// IsRequest reports whether r asks to upgrade to SPDY/3.1.
func IsRequest(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "SPDY/3.1")
}

// Negotiate picks the stream protocol: the first the client offers that
// the server supports (httpstream.Handshake). ok is false when none fits.
func Negotiate(r *http.Request, supported []string) (string, bool) {
	for _, v := range r.Header.Values(HeaderProtocolVersion) {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			for _, s := range supported {
				if p == s {
					return p, true
				}
			}
		}
	}
	return "", false
}

// Upgrade answers r with 101 Switching Protocols to SPDY/3.1 and
// protocol, takes over its connection and returns it as a Conn.
func Upgrade(w http.ResponseWriter, r *http.Request, protocol string) (*Conn, error) {
	nc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("spdy: cannot take over the connection: %w", err)
	}
	_ = nc.SetDeadline(time.Time{})
	resp := "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n" +
		HeaderProtocolVersion + ": " + protocol + "\r\n\r\n"
	if _, err := brw.WriteString(resp); err != nil {
		nc.Close()
		return nil, err
	}
	if err := brw.Flush(); err != nil {
		nc.Close()
		return nil, err
	}
	c := NewConn(struct {
		io.Reader
		io.Writer
	}{brw.Reader, nc}, protocol)
	c.closer = nc
	return c, nil
}

// Conn is a server's SPDY connection.
type Conn struct {
	// Protocol is the negotiated stream protocol.
	Protocol string

	closer io.Closer
	r      *bufio.Reader // read by Accept's caller only
	// hdr feeds the header blocks to zr, the client's compression context.
	hdr io.LimitedReader
	zr  io.ReadCloser

	// mu guards w, zw and zbuf: one frame is written at a time.
	mu   sync.Mutex
	w    *bufio.Writer
	zbuf bytes.Buffer
	zw   *zlib.Writer
}

// NewConn makes a Conn over an established connection (its reads and
// writes), as Upgrade does; tests use it over a pipe.
func NewConn(rw io.ReadWriter, protocol string) *Conn {
	c := &Conn{Protocol: protocol, r: bufio.NewReader(rw), w: bufio.NewWriter(rw)}
	c.hdr.R = c.r
	c.zw, _ = zlib.NewWriterLevelDict(&c.zbuf, zlib.BestSpeed, dictionary()) // the level is valid
	return c
}

// Stream is a stream the client opened, with its headers.
type Stream struct {
	ID      uint32
	Headers http.Header
}

// ErrProtocol is a frame this server cannot read.
var ErrProtocol = errors.New("spdy: protocol error")

// Accept returns the next stream the client opens, having answered it
// with SYN_REPLY. Meanwhile it answers pings and drops what else the
// client sends (settings, window updates, data on its streams). It returns
// io.EOF when the client closes the connection or sends GOAWAY.
func (c *Conn) Accept() (Stream, error) {
	for {
		var h [8]byte
		if _, err := io.ReadFull(c.r, h[:]); err != nil {
			return Stream{}, err
		}
		n := int(binary.BigEndian.Uint32(h[4:]) & 0xFFFFFF)
		if n > MaxFrame {
			return Stream{}, fmt.Errorf("%w: a frame of %d bytes", ErrProtocol, n)
		}
		if h[0]&0x80 == 0 { // a data frame: the client's stdin or resize, not read here
			if _, err := c.r.Discard(n); err != nil {
				return Stream{}, err
			}
			continue
		}
		switch typ := binary.BigEndian.Uint16(h[2:4]); typ {
		case typeSynStream:
			if n < 10 {
				return Stream{}, fmt.Errorf("%w: SYN_STREAM of %d bytes", ErrProtocol, n)
			}
			var fixed [10]byte
			if _, err := io.ReadFull(c.r, fixed[:]); err != nil {
				return Stream{}, err
			}
			id := binary.BigEndian.Uint32(fixed[:4]) & 0x7FFFFFFF
			headers, err := c.readHeaders(n - 10)
			if err != nil {
				return Stream{}, err
			}
			if err := c.reply(id); err != nil {
				return Stream{}, err
			}
			return Stream{ID: id, Headers: headers}, nil
		case typeHeaders:
			if n < 4 {
				return Stream{}, fmt.Errorf("%w: HEADERS of %d bytes", ErrProtocol, n)
			}
			if _, err := c.r.Discard(4); err != nil {
				return Stream{}, err
			}
			if _, err := c.readHeaders(n - 4); err != nil { // kept in step with the client's context
				return Stream{}, err
			}
		case typePing:
			payload := make([]byte, n)
			if _, err := io.ReadFull(c.r, payload); err != nil {
				return Stream{}, err
			}
			if err := c.writeControl(typePing, 0, payload); err != nil {
				return Stream{}, err
			}
		case typeGoAway:
			return Stream{}, io.EOF
		default: // SETTINGS, RST_STREAM, WINDOW_UPDATE, others: nothing to do
			if _, err := c.r.Discard(n); err != nil {
				return Stream{}, err
			}
		}
	}
}

// readHeaders reads a header block of n bytes: zlib-compressed in the
// client's one context, a count of names, then each name and its value
// (values joined by NUL), lengths as 32-bit big-endian numbers.
func (c *Conn) readHeaders(n int) (http.Header, error) {
	c.hdr.N = int64(n)
	if c.zr == nil {
		zr, err := zlib.NewReaderDict(&c.hdr, dictionary())
		if err != nil {
			return nil, fmt.Errorf("%w: header block: %v", ErrProtocol, err)
		}
		c.zr = zr
	}
	readString := func() (string, error) {
		var l [4]byte
		if _, err := io.ReadFull(c.zr, l[:]); err != nil {
			return "", err
		}
		size := binary.BigEndian.Uint32(l[:])
		if size > MaxFrame {
			return "", fmt.Errorf("%w: a header of %d bytes", ErrProtocol, size)
		}
		b := make([]byte, size)
		_, err := io.ReadFull(c.zr, b)
		return string(b), err
	}
	var l [4]byte
	if _, err := io.ReadFull(c.zr, l[:]); err != nil {
		return nil, fmt.Errorf("%w: header block: %v", ErrProtocol, err)
	}
	count := binary.BigEndian.Uint32(l[:])
	if count > 1000 {
		return nil, fmt.Errorf("%w: %d headers", ErrProtocol, count)
	}
	h := http.Header{}
	for range count {
		name, err := readString()
		if err != nil {
			return nil, fmt.Errorf("%w: header block: %v", ErrProtocol, err)
		}
		value, err := readString()
		if err != nil {
			return nil, fmt.Errorf("%w: header block: %v", ErrProtocol, err)
		}
		for _, v := range strings.Split(value, "\x00") {
			h.Add(name, v)
		}
	}
	if _, err := io.Copy(io.Discard, &c.hdr); err != nil { // what the block has past its headers
		return nil, err
	}
	return h, nil
}

// reply sends SYN_REPLY for stream id, with no header.
func (c *Conn) reply(id uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.zbuf.Reset()
	_, _ = c.zw.Write([]byte{0, 0, 0, 0}) // no header; writes to a bytes.Buffer do not fail
	_ = c.zw.Flush()
	payload := binary.BigEndian.AppendUint32(nil, id&0x7FFFFFFF)
	return c.writeControlLocked(typeSynReply, 0, append(payload, c.zbuf.Bytes()...))
}

func (c *Conn) writeControl(typ uint16, flags byte, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeControlLocked(typ, flags, payload)
}

func (c *Conn) writeControlLocked(typ uint16, flags byte, payload []byte) error {
	h := []byte{0x80, 3, byte(typ >> 8), byte(typ)}
	h = binary.BigEndian.AppendUint32(h, uint32(flags)<<24|uint32(len(payload)))
	c.w.Write(h)
	c.w.Write(payload)
	return c.w.Flush()
}

// Write sends data on stream id, and ends the stream if fin is set.
func (c *Conn) Write(id uint32, data []byte, fin bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var flags byte
	if fin {
		flags = flagFin
	}
	h := binary.BigEndian.AppendUint32(nil, id&0x7FFFFFFF)
	h = binary.BigEndian.AppendUint32(h, uint32(flags)<<24|uint32(len(data)))
	c.w.Write(h)
	c.w.Write(data)
	return c.w.Flush()
}

// Close sends GOAWAY and closes the connection.
func (c *Conn) Close() error {
	_ = c.writeControl(typeGoAway, 0, make([]byte, 8))
	if c.closer != nil {
		return c.closer.Close()
	}
	return nil
}
