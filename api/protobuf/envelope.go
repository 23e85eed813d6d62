package protobuf

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// MediaType is the Content-Type of a protobuf body.
const MediaType = "application/vnd.kubernetes.protobuf"

// magic starts every protobuf object body, so that a reader can tell it from JSON:
// protoEncodingPrefix in k8s.io/apimachinery/pkg/runtime/serializer/protobuf.
const magic = "k8s\x00"

// Field numbers of runtime.Unknown, runtime.TypeMeta, metav1.WatchEvent and
// runtime.RawExtension.
const (
	unknownTypeMeta        protowire.Number = 1
	unknownRaw             protowire.Number = 2
	unknownContentEncoding protowire.Number = 3
	unknownContentType     protowire.Number = 4

	typeMetaAPIVersion protowire.Number = 1
	typeMetaKind       protowire.Number = 2

	watchEventType   protowire.Number = 1
	watchEventObject protowire.Number = 2

	rawExtensionRaw protowire.Number = 1
)

// Unknown is runtime.Unknown: the envelope of every protobuf object body. It names the
// object's kind, since the message itself carries no TypeMeta, and holds the message.
type Unknown struct {
	// APIVersion is the object's "group/version", e.g. "v1" or "coordination.k8s.io/v1".
	APIVersion string
	// Kind is the object's kind, e.g. "Pod".
	Kind string
	// Raw is the bare message of the object.
	Raw []byte
	// ContentEncoding is the encoding of Raw; kube-apiserver always leaves it empty.
	ContentEncoding string
	// ContentType is the media type of Raw; empty means protobuf.
	ContentType string
}

// MarshalObject returns v as a protobuf object body, as [AppendObject] writes it.
func MarshalObject(apiVersion, kind string, v any) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	buf, err := e.appendObject(e.buf[:0], apiVersion, kind, v)
	e.buf = buf
	if err != nil {
		return nil, err
	}
	return copyOut(buf), nil
}

// AppendObject appends v as a protobuf object body: the magic "k8s\x00", then
// runtime.Unknown{typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3,
// contentType = 4} whose raw is the bare message of v and whose content encoding and type
// are empty. These are exactly kube-apiserver's bytes (runtime.Unknown.NestedMarshalTo).
// On error it returns b unchanged.
func AppendObject(b []byte, apiVersion, kind string, v any) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	return e.appendObject(b, apiVersion, kind, v)
}

func (e *encoder) appendObject(b []byte, apiVersion, kind string, v any) ([]byte, error) {
	rv, p, err := messageOf(v)
	if err != nil {
		return b, err
	}
	out := appendEnvelopeHead(b, apiVersion, kind)
	out = protowire.AppendTag(out, unknownRaw, protowire.BytesType)
	start := len(out)
	out = append(out, 0)
	if out, err = e.appendMessage(out, p, rv); err != nil {
		return b, err
	}
	out = fixLength(out, start)

	// Empty, but written: gogo writes every non-pointer string.
	out = protowire.AppendTag(out, unknownContentEncoding, protowire.BytesType)
	out = protowire.AppendString(out, "")
	out = protowire.AppendTag(out, unknownContentType, protowire.BytesType)
	return protowire.AppendString(out, ""), nil
}

// AppendUnknown appends u as a protobuf object body: the magic "k8s\x00", then u as
// runtime.Unknown, exactly as [AppendObject] writes an object. It is for a message built
// elsewhere, such as a list encoded item by item.
func AppendUnknown(b []byte, u Unknown) []byte {
	out := appendEnvelopeHead(b, u.APIVersion, u.Kind)
	out = protowire.AppendTag(out, unknownRaw, protowire.BytesType)
	out = protowire.AppendBytes(out, u.Raw)
	out = protowire.AppendTag(out, unknownContentEncoding, protowire.BytesType)
	out = protowire.AppendString(out, u.ContentEncoding)
	out = protowire.AppendTag(out, unknownContentType, protowire.BytesType)
	return protowire.AppendString(out, u.ContentType)
}

// appendEnvelopeHead appends the magic and the envelope's typeMeta field.
func appendEnvelopeHead(b []byte, apiVersion, kind string) []byte {
	out := append(b, magic...)
	typeMetaSize := protowire.SizeTag(typeMetaAPIVersion) + protowire.SizeBytes(len(apiVersion)) +
		protowire.SizeTag(typeMetaKind) + protowire.SizeBytes(len(kind))
	out = protowire.AppendTag(out, unknownTypeMeta, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(typeMetaSize))
	out = protowire.AppendTag(out, typeMetaAPIVersion, protowire.BytesType)
	out = protowire.AppendString(out, apiVersion)
	out = protowire.AppendTag(out, typeMetaKind, protowire.BytesType)
	return protowire.AppendString(out, kind)
}

// UnmarshalEnvelope checks that data starts with the magic "k8s\x00" and decodes the
// runtime.Unknown after it. The result's Raw aliases data. Unknown fields are skipped;
// anything else wrong returns an error wrapping [ErrMalformed].
func UnmarshalEnvelope(data []byte) (Unknown, error) {
	var u Unknown
	switch {
	case len(data) == 0:
		return u, fmt.Errorf("%w: empty body", ErrMalformed)
	case !bytes.HasPrefix(data, []byte(magic)):
		return u, fmt.Errorf("%w: body does not start with the protobuf prefix %q", ErrMalformed, magic)
	case len(data) == len(magic):
		return u, fmt.Errorf("%w: nothing after the protobuf prefix", ErrMalformed)
	}
	err := eachField(data[len(magic):], "Unknown", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case unknownTypeMeta:
			s, n, err := consumeBytes(typ, b)
			if err != nil {
				return 0, err
			}
			return n, parseTypeMeta(s, &u)
		case unknownRaw:
			s, n, err := consumeBytes(typ, b)
			u.Raw = s
			return n, err
		case unknownContentEncoding:
			s, n, err := consumeBytes(typ, b)
			u.ContentEncoding = string(s)
			return n, err
		case unknownContentType:
			s, n, err := consumeBytes(typ, b)
			u.ContentType = string(s)
			return n, err
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return Unknown{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return u, nil
}

// parseTypeMeta parses runtime.TypeMeta {apiVersion = 1, kind = 2} into u.
func parseTypeMeta(b []byte, u *Unknown) error {
	return eachField(b, "TypeMeta", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case typeMetaAPIVersion:
			s, n, err := consumeBytes(typ, b)
			u.APIVersion = string(s)
			return n, err
		case typeMetaKind:
			s, n, err := consumeBytes(typ, b)
			u.Kind = string(s)
			return n, err
		}
		return skip(num, typ, b)
	})
}

// AppendWatchEvent appends a metav1.WatchEvent {type = 1, object = 2} whose object is a
// runtime.RawExtension {raw = 1} holding object, a whole object body as [AppendObject]
// writes it (kube-apiserver nests the enveloped object). The event itself has no envelope
// and no length prefix: the HTTP layer frames each event with its 4-byte big-endian length.
// A nil object is written as an empty RawExtension, as gogo does.
func AppendWatchEvent(b []byte, eventType string, object []byte) []byte {
	b = protowire.AppendTag(b, watchEventType, protowire.BytesType)
	b = protowire.AppendString(b, eventType)
	b = protowire.AppendTag(b, watchEventObject, protowire.BytesType)
	return appendRaw(b, object)
}

// UnmarshalWatchEvent decodes a metav1.WatchEvent as [AppendWatchEvent] writes it and
// returns its type and its object's raw bytes, which alias data. A missing field is empty;
// checking the type and decoding the object are the caller's. Unknown fields are skipped;
// anything else wrong returns an error wrapping [ErrMalformed].
func UnmarshalWatchEvent(data []byte) (eventType string, object []byte, err error) {
	err = eachField(data, "WatchEvent", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case watchEventType:
			s, n, err := consumeBytes(typ, b)
			eventType = string(s)
			return n, err
		case watchEventObject:
			s, n, err := consumeBytes(typ, b)
			if err != nil {
				return 0, err
			}
			return n, eachField(s, "RawExtension", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
				if num != rawExtensionRaw {
					return skip(num, typ, b)
				}
				s, n, err := consumeBytes(typ, b)
				object = s
				return n, err
			})
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return eventType, object, nil
}
