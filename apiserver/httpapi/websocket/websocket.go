// Package websocket is the server side of the WebSocket protocol (RFC
// 6455), as much as kube-apiserver's streaming subresources use: the
// opening handshake with subprotocol negotiation, message framing with
// fragments, the client's masking, ping and pong, and the closing
// handshake. No extension (permessage-deflate) is offered.
//
// It stands where kube-apiserver uses golang.org/x/net/websocket under
// k8s.io/apimachinery/pkg/util/httpstream/wsstream; the channel protocols
// over it (channel.go) are wsstream's. It imports only the standard library.
//
// Concurrency: a Conn's writes may come from several goroutines (a mutex
// orders them); its reads from one at a time.
package websocket

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Opcode says what a frame carries (RFC 6455 section 5.2).
type Opcode byte

// The opcodes.
const (
	OpContinuation Opcode = 0x0
	OpText         Opcode = 0x1
	OpBinary       Opcode = 0x2
	OpClose        Opcode = 0x8
	OpPing         Opcode = 0x9
	OpPong         Opcode = 0xA
)

// isControl says whether op is a control frame's: close, ping or pong.
func (op Opcode) isControl() bool { return op&0x8 != 0 }

// Close codes (RFC 6455 section 7.4.1).
const (
	CloseNormal        = 1000
	CloseProtocolError = 1002
	CloseTooBig        = 1009
)

// MaxMessage bounds a message a client sends, its fragments together: the
// streams here carry a terminal's keystrokes and resize events.
const MaxMessage = 1 << 20

// IsRequest reports whether r asks to upgrade to a websocket (kube's
// wsstream.IsWebSocketRequest: "Upgrade: websocket" and a Connection
// header naming Upgrade).
func IsRequest(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") && headerHas(r.Header, "Connection", "upgrade")
}

// headerHas reports whether one of the comma-separated tokens of header
// name is token, ignoring case.
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// Protocols returns the subprotocols the client offers
// (Sec-WebSocket-Protocol), in its order.
func Protocols(r *http.Request) []string {
	var out []string
	for _, v := range r.Header.Values("Sec-Websocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// Negotiate picks the subprotocol to speak: the first the client offers
// that the server supports, or "" when the client offers none and the
// server supports "" (wsstream's handshake). ok is false when none fits.
func Negotiate(offered, supported []string) (protocol string, ok bool) {
	if len(offered) == 0 {
		offered = []string{""}
	}
	for _, p := range offered {
		for _, s := range supported {
			if p == s {
				return p, true
			}
		}
	}
	return "", false
}

// HandshakeError is a request that cannot be upgraded: Code is the HTTP
// status to answer it with.
type HandshakeError struct {
	Code    int
	Message string
}

func (e *HandshakeError) Error() string { return e.Message }

// acceptKey is the Sec-WebSocket-Accept for a client's key (section 4.2.2).
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// Check validates the opening handshake of r and negotiates its
// subprotocol among supported, without answering it: a HandshakeError says
// what is wrong (400 for a request that is not a version-13 websocket
// upgrade, 403 for subprotocols the server does not speak, as
// x/net/websocket answers).
func Check(r *http.Request, supported []string) (protocol string, err error) {
	if r.Method != http.MethodGet || !IsRequest(r) {
		return "", &HandshakeError{Code: http.StatusBadRequest, Message: "not a websocket upgrade request"}
	}
	if r.Header.Get("Sec-Websocket-Version") != "13" {
		return "", &HandshakeError{Code: http.StatusBadRequest, Message: "websocket version 13 is required"}
	}
	if key, err := base64.StdEncoding.DecodeString(r.Header.Get("Sec-Websocket-Key")); err != nil || len(key) != 16 {
		return "", &HandshakeError{Code: http.StatusBadRequest, Message: "Sec-WebSocket-Key is not 16 bytes in base64"}
	}
	offered := Protocols(r)
	p, ok := Negotiate(offered, supported)
	if !ok {
		return "", &HandshakeError{Code: http.StatusForbidden, Message: fmt.Sprintf("requested protocol(s) are not supported: %v; supports %v", offered, supported)}
	}
	return p, nil
}

// Upgrade answers r's opening handshake (checked by Check) with 101
// Switching Protocols and protocol, takes over its connection and returns
// it as a Conn. The caller closes the Conn.
func Upgrade(w http.ResponseWriter, r *http.Request, protocol string) (*Conn, error) {
	nc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("websocket: cannot take over the connection: %w", err)
	}
	_ = nc.SetDeadline(time.Time{}) // the server's timeouts were for a request, not a stream
	var b strings.Builder
	b.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n")
	b.WriteString("Sec-WebSocket-Accept: " + acceptKey(r.Header.Get("Sec-Websocket-Key")) + "\r\n")
	if protocol != "" {
		b.WriteString("Sec-WebSocket-Protocol: " + protocol + "\r\n")
	}
	b.WriteString("\r\n")
	if _, err := brw.WriteString(b.String()); err != nil {
		nc.Close()
		return nil, err
	}
	if err := brw.Flush(); err != nil {
		nc.Close()
		return nil, err
	}
	return &Conn{nc: nc, r: brw.Reader, w: brw.Writer, Protocol: protocol}, nil
}

// Conn is a server's websocket connection.
type Conn struct {
	// Protocol is the negotiated subprotocol.
	Protocol string

	nc net.Conn
	r  *bufio.Reader // read by ReadMessage's caller only
	// mu guards w and closeSent: one frame is written at a time.
	mu        sync.Mutex
	w         *bufio.Writer
	closeSent bool
}

// NewConn makes a Conn over an established connection, rw (its reads and
// writes), as Upgrade does after the handshake; tests use it over a pipe.
func NewConn(rw io.ReadWriter, protocol string) *Conn {
	return &Conn{r: bufio.NewReader(rw), w: bufio.NewWriter(rw), Protocol: protocol}
}

// ErrClosed is returned by writes after the close frame was sent.
var ErrClosed = errors.New("websocket: connection closed")

// WriteMessage sends data as one unfragmented message of op (OpText,
// OpBinary, or a control opcode). A server's frames are not masked.
func (c *Conn) WriteMessage(op Opcode, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeLocked(op, data)
}

func (c *Conn) writeLocked(op Opcode, data []byte) error {
	if c.closeSent {
		return ErrClosed
	}
	if op == OpClose {
		c.closeSent = true
	}
	if _, err := c.w.Write(AppendFrame(nil, Frame{Fin: true, Op: op, Payload: data})); err != nil {
		return err
	}
	return c.w.Flush()
}

// Close sends a close frame with code and reason (once), then closes the
// connection.
func (c *Conn) Close(code int, reason string) error {
	c.mu.Lock()
	if !c.closeSent {
		_ = c.writeLocked(OpClose, closePayload(code, reason))
	}
	c.mu.Unlock()
	if c.nc != nil {
		return c.nc.Close()
	}
	return nil
}

func closePayload(code int, reason string) []byte {
	p := binary.BigEndian.AppendUint16(nil, uint16(code))
	return append(p, reason[:min(len(reason), 123)]...)
}

// ReadMessage returns the client's next data message (OpText or
// OpBinary), its fragments joined. It answers pings with pongs and skips
// pongs; a close frame is answered with one, and io.EOF returned. A frame
// that breaks the protocol (unmasked, a control frame fragmented or over
// 125 bytes, a continuation out of place, a message over MaxMessage) gets
// a close frame with the code RFC 6455 says, and an error.
func (c *Conn) ReadMessage() (Opcode, []byte, error) {
	var op Opcode
	var msg []byte
	for {
		f, err := ReadFrame(c.r, MaxMessage-len(msg))
		if err != nil {
			var pe *ProtocolError
			if errors.As(err, &pe) {
				_ = c.Close(pe.Code, pe.Reason)
			}
			return 0, nil, err
		}
		switch {
		case f.Op == OpPing:
			if err := c.WriteMessage(OpPong, f.Payload); err != nil {
				return 0, nil, err
			}
			continue
		case f.Op == OpPong:
			continue
		case f.Op == OpClose:
			code := CloseNormal
			if len(f.Payload) >= 2 {
				code = int(binary.BigEndian.Uint16(f.Payload))
			}
			_ = c.Close(code, "")
			return 0, nil, io.EOF
		case f.Op == OpContinuation && op == 0, f.Op != OpContinuation && op != 0:
			_ = c.Close(CloseProtocolError, "unexpected continuation")
			return 0, nil, &ProtocolError{Code: CloseProtocolError, Reason: "a fragment out of place"}
		}
		if op == 0 {
			op = f.Op
		}
		msg = append(msg, f.Payload...)
		if f.Fin {
			return op, msg, nil
		}
	}
}

// Frame is one websocket frame, its payload unmasked.
type Frame struct {
	Fin     bool
	Op      Opcode
	Payload []byte
}

// ProtocolError is a frame that breaks RFC 6455, with the close code to
// answer it with.
type ProtocolError struct {
	Code   int
	Reason string
}

func (e *ProtocolError) Error() string { return "websocket: " + e.Reason }

// ReadFrame reads one frame a client sent (section 5.2): client frames
// must be masked, and are unmasked here. A payload over limit bytes, a
// reserved bit or opcode, and a control frame that is fragmented or over
// 125 bytes are ProtocolErrors; a short read is io.ErrUnexpectedEOF (io.EOF
// before the frame's first byte).
func ReadFrame(r io.Reader, limit int) (Frame, error) { return readFrame(r, limit, true) }

// ReadServerFrame reads one frame a server sent, unmasked, as a client
// does: what tests of a server read.
func ReadServerFrame(r io.Reader, limit int) (Frame, error) { return readFrame(r, limit, false) }

func readFrame(r io.Reader, limit int, masked bool) (Frame, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return Frame{}, err
	}
	f := Frame{Fin: hdr[0]&0x80 != 0, Op: Opcode(hdr[0] & 0x0F)}
	switch {
	case hdr[0]&0x70 != 0:
		return Frame{}, &ProtocolError{Code: CloseProtocolError, Reason: "reserved bits set without an extension"}
	case f.Op > OpBinary && f.Op < OpClose || f.Op > OpPong:
		return Frame{}, &ProtocolError{Code: CloseProtocolError, Reason: fmt.Sprintf("reserved opcode %#x", byte(f.Op))}
	case masked && hdr[1]&0x80 == 0:
		return Frame{}, &ProtocolError{Code: CloseProtocolError, Reason: "a client's frame is not masked"}
	case !masked && hdr[1]&0x80 != 0:
		return Frame{}, &ProtocolError{Code: CloseProtocolError, Reason: "a server's frame is masked"}
	}
	n := uint64(hdr[1] & 0x7F)
	switch n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return Frame{}, unexpected(err)
		}
		n = uint64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		var ext [8]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return Frame{}, unexpected(err)
		}
		n = binary.BigEndian.Uint64(ext[:])
	}
	if f.Op.isControl() && (!f.Fin || n > 125) {
		return Frame{}, &ProtocolError{Code: CloseProtocolError, Reason: "a control frame is fragmented or over 125 bytes"}
	}
	if n > uint64(max(limit, 0)) {
		return Frame{}, &ProtocolError{Code: CloseTooBig, Reason: fmt.Sprintf("a message over %d bytes", MaxMessage)}
	}
	var mask [4]byte
	if masked {
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return Frame{}, unexpected(err)
		}
	}
	f.Payload = make([]byte, n)
	if _, err := io.ReadFull(r, f.Payload); err != nil {
		return Frame{}, unexpected(err)
	}
	for i := range f.Payload {
		f.Payload[i] ^= mask[i%4]
	}
	return f, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// AppendFrame appends f to b as a server sends it: unmasked.
func AppendFrame(b []byte, f Frame) []byte {
	first := byte(f.Op)
	if f.Fin {
		first |= 0x80
	}
	b = append(b, first)
	switch n := len(f.Payload); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xFFFF:
		b = binary.BigEndian.AppendUint16(append(b, 126), uint16(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 127), uint64(n))
	}
	return append(b, f.Payload...)
}

// AppendMaskedFrame appends f to b as a client sends it, masked with mask:
// what tests send a server.
func AppendMaskedFrame(b []byte, f Frame, mask [4]byte) []byte {
	start := len(b)
	b = AppendFrame(b, f)
	hdr := 2
	switch b[start+1] {
	case 126:
		hdr = 4
	case 127:
		hdr = 10
	}
	b[start+1] |= 0x80
	at := start + hdr
	b = append(b[:at], append(mask[:], b[at:]...)...)
	for i := range f.Payload {
		b[at+4+i] ^= mask[i%4]
	}
	return b
}
