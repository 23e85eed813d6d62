package httpapi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// kubectl's typed clients (auth can-i, auth whoami) send their review
// requests as protobuf, in Kubernetes' envelope: the magic "k8s\x00", then
// a runtime.Unknown message whose field 1 is the TypeMeta (apiVersion 1,
// kind 2) and field 2 the object's own message. The review handlers need
// only a few string fields of those small messages, so this file reads
// protobuf's wire format directly (varint keys; wire type 2 for strings and
// messages) instead of carrying a general codec.

// protoMagic starts every protobuf body Kubernetes sends.
var protoMagic = []byte("k8s\x00")

// protoMessage is the encoded bytes of one protobuf message.
type protoMessage []byte

// field returns the last length-delimited field numbered num (protobuf's
// rule: the last value of a repeated scalar wins), and whether there is
// one. Malformed input ends the search: the fields read so far count.
func (m protoMessage) field(num uint64) ([]byte, bool) {
	var found []byte
	ok := false
	b := []byte(m)
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		b = b[n:]
		var val []byte
		switch key & 7 {
		case 0: // varint
			_, n = binary.Uvarint(b)
			if n <= 0 {
				return found, ok
			}
			b = b[n:]
			continue
		case 1: // 64-bit
			if len(b) < 8 {
				return found, ok
			}
			b = b[8:]
			continue
		case 5: // 32-bit
			if len(b) < 4 {
				return found, ok
			}
			b = b[4:]
			continue
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return found, ok
			}
			val, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return found, ok
		}
		if key>>3 == num {
			found, ok = val, true
		}
	}
	return found, ok
}

// message returns the embedded message numbered num (empty if absent).
func (m protoMessage) message(num uint64) protoMessage {
	b, _ := m.field(num)
	return b
}

// str returns the string field numbered num ("" if absent).
func (m protoMessage) str(num uint64) string {
	b, _ := m.field(num)
	return string(b)
}

// decodeProtoEnvelope reads Kubernetes' protobuf envelope and returns the
// type it names and the object's message.
func decodeProtoEnvelope(body []byte) (typeMeta, protoMessage, error) {
	rest, ok := bytes.CutPrefix(body, protoMagic)
	if !ok {
		return typeMeta{}, nil, errors.New(`it does not start with "k8s\x00"`)
	}
	env := protoMessage(rest)
	tmBytes, ok := env.field(1)
	if !ok {
		return typeMeta{}, nil, errors.New("the envelope names no type")
	}
	tm := protoMessage(tmBytes)
	raw, ok := env.field(2)
	if !ok {
		return typeMeta{}, nil, fmt.Errorf("the envelope holds no %s", tm.str(2))
	}
	return typeMeta{APIVersion: tm.str(1), Kind: tm.str(2)}, raw, nil
}
