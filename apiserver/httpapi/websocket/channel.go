package websocket

import (
	"encoding/base64"
	"errors"
	"fmt"
)

// Kubernetes' subprotocols over a websocket (k8s.io/apimachinery's
// httpstream/wsstream and util/remotecommand).
//
// The channel protocols multiplex streams: each message starts with its
// stream's number (stdin 0, stdout 1, stderr 2, the error stream 3,
// terminal resize 4), a byte in the binary ones and an ASCII digit before
// base64 data in the base64 ones. v4 writes a JSON Status on the error
// stream (v1 writes only a failure's message); v5 adds the client's
// half-close of a stream: the message {255, stream}.
//
// The reader protocols carry one stream (a log) as plain messages, binary
// or base64 text.
const (
	ChannelV5       = "v5.channel.k8s.io"
	ChannelV4       = "v4.channel.k8s.io"
	ChannelV4Base64 = "v4.base64.channel.k8s.io"
	ChannelV1       = "channel.k8s.io"
	ChannelV1Base64 = "base64.channel.k8s.io"

	ReaderBinary = "binary.k8s.io"
	ReaderBase64 = "base64.binary.k8s.io"
)

// ChannelProtocols are the channel protocols a kubelet's exec speaks and
// the apiserver's translator adds v5 to, and "" (no subprotocol asked,
// taken as channel.k8s.io).
var ChannelProtocols = []string{ChannelV5, ChannelV4, ChannelV4Base64, ChannelV1, ChannelV1Base64, ""}

// ReaderProtocols are the protocols of a log over a websocket
// (wsstream.NewDefaultReaderProtocols), "" being binary.
var ReaderProtocols = []string{ReaderBinary, ReaderBase64, ""}

// The streams of the channel protocols.
const (
	StreamStdin  byte = 0
	StreamStdout byte = 1
	StreamStderr byte = 2
	StreamError  byte = 3
	StreamResize byte = 4
	// StreamClose starts v5's half-close message, {StreamClose, stream}.
	StreamClose byte = 255
)

// IsBase64 says whether protocol carries base64 text rather than bytes.
func IsBase64(protocol string) bool {
	return protocol == ChannelV4Base64 || protocol == ChannelV1Base64 || protocol == ReaderBase64
}

// WriteStream sends data on stream of a channel protocol, one message.
func (c *Conn) WriteStream(stream byte, data []byte) error {
	if IsBase64(c.Protocol) {
		msg := append([]byte{'0' + stream}, base64.StdEncoding.EncodeToString(data)...)
		return c.WriteMessage(OpText, msg)
	}
	return c.WriteMessage(OpBinary, append([]byte{stream}, data...))
}

// WriteData sends data as one message of a reader protocol.
func (c *Conn) WriteData(data []byte) error {
	if IsBase64(c.Protocol) {
		return c.WriteMessage(OpText, []byte(base64.StdEncoding.EncodeToString(data)))
	}
	return c.WriteMessage(OpBinary, data)
}

// StreamMessage is a client's message of a channel protocol: data on a
// stream, or (Closed) v5's half-close of it.
type StreamMessage struct {
	Stream byte
	Data   []byte
	Closed bool
}

// ErrBadStreamMessage is a message of a channel protocol that cannot be
// read: base64 that is not, or a half-close without its one stream byte.
var ErrBadStreamMessage = errors.New("websocket: malformed stream message")

// DecodeStream reads a client's message of the channel protocol: an empty
// message is ok=false, to be skipped, as wsstream skips it.
func DecodeStream(protocol string, msg []byte) (m StreamMessage, ok bool, err error) {
	if len(msg) == 0 {
		return StreamMessage{}, false, nil
	}
	if protocol == ChannelV5 && msg[0] == StreamClose {
		if len(msg) != 2 {
			return StreamMessage{}, false, fmt.Errorf("%w: a close signal takes one stream byte, got %d", ErrBadStreamMessage, len(msg)-1)
		}
		return StreamMessage{Stream: msg[1], Closed: true}, true, nil
	}
	m.Stream, m.Data = msg[0], msg[1:]
	if IsBase64(protocol) {
		m.Stream -= '0'
		data := make([]byte, base64.StdEncoding.DecodedLen(len(m.Data)))
		n, err := base64.StdEncoding.Decode(data, m.Data)
		if err != nil {
			return StreamMessage{}, false, fmt.Errorf("%w: %v", ErrBadStreamMessage, err)
		}
		m.Data = data[:n]
	}
	return m, true, nil
}

// ReadStream returns the client's next message of a channel protocol,
// skipping empty ones; io.EOF when it closed the connection.
func (c *Conn) ReadStream() (StreamMessage, error) {
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			return StreamMessage{}, err
		}
		m, ok, err := DecodeStream(c.Protocol, msg)
		if err != nil {
			return StreamMessage{}, err
		}
		if ok {
			return m, nil
		}
	}
}

// Discard reads and drops the client's messages until it closes the
// connection or breaks the protocol, as wsstream's IgnoreReceives: a log's
// reader sends nothing but its pings and its close.
func (c *Conn) Discard() {
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
	}
}
