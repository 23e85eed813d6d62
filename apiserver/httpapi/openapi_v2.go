package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/apiserver"
)

// The /openapi/v2 document: every group version's schemas in one Swagger
// 2.0 document, as kube-apiserver serves it, in JSON or in the protobuf of
// github.com/google/gnostic-models/openapiv2 (OpenAPIv2.proto), which is
// what client-go asks for. kubectl reads it for client-side validation of
// a kind that has no v3 document, and for `explain -o plaintext-openapiv2`.

// swaggerDoc is a Swagger 2.0 document.
type swaggerDoc struct {
	Swagger     string                     `json:"swagger"`
	Info        openAPIInfo                `json:"info"`
	Paths       map[string]swaggerPathItem `json:"paths"`
	Definitions map[string]*schema         `json:"definitions"`
}

type swaggerPathItem struct {
	Parameters []swaggerParameter `json:"parameters,omitempty"`
	Get        *swaggerOperation  `json:"get,omitempty"`
	Patch      *swaggerOperation  `json:"patch,omitempty"`
}

type swaggerOperation struct {
	Description string                     `json:"description"`
	OperationID string                     `json:"operationId"`
	Produces    []string                   `json:"produces"`
	Parameters  []swaggerParameter         `json:"parameters,omitempty"`
	Responses   map[string]swaggerResponse `json:"responses"`
	Action      string                     `json:"x-kubernetes-action"`
	GVK         groupVersionKind           `json:"x-kubernetes-group-version-kind"`
}

// swaggerParameter is a query or path parameter of a primitive type.
type swaggerParameter struct {
	Name        string `json:"name"`
	In          string `json:"in"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Type        string `json:"type"`
}

type swaggerResponse struct {
	Description string  `json:"description"`
	Schema      *schema `json:"schema,omitempty"`
}

func newSwaggerDoc() *swaggerDoc {
	return &swaggerDoc{
		Swagger: "2.0",
		Info:    openAPIInfo{Title: "miniplane", Version: apiserver.GitVersion},
		Paths:   make(map[string]swaggerPathItem),
		// Definitions are the union of the group versions': one Go type
		// may be a definition in several (ObjectMeta is in all).
		Definitions: make(map[string]*schema),
	}
}

// add adds a group version's paths and definitions. A definition already
// there must be the same schema; the kinds it is the schema of add up.
func (d *swaggerDoc) add(doc *openAPIDoc) error {
	for name, s := range doc.Components.Schemas {
		if s.v2 != nil {
			s = s.v2
		}
		s = swaggerSchema(s)
		old, ok := d.Definitions[name]
		if !ok {
			d.Definitions[name] = s
			continue
		}
		a, b := *old, *s
		a.GVK, b.GVK = nil, nil
		ja, err := json.Marshal(&a)
		if err != nil {
			return err
		}
		jb, err := json.Marshal(&b)
		if err != nil {
			return err
		}
		if string(ja) != string(jb) {
			return fmt.Errorf("two schemas are named %s", name)
		}
		old.GVK = append(old.GVK, s.GVK...)
	}
	for path, item := range doc.Paths {
		d.Paths[path] = swaggerPathItem{
			Parameters: swaggerParameters(item.Parameters),
			Get:        swaggerOperationOf(item.Get),
			Patch:      swaggerOperationOf(item.Patch),
		}
	}
	return nil
}

// swaggerSchema returns s in Swagger 2.0's form: references into
// #/definitions/, a reference with a description or default as a $ref
// beside them (v2 has no allOf wrapper in kube-apiserver's documents), and
// a oneOf of primitives as the string it is written as (IntOrString,
// Quantity).
func swaggerSchema(s *schema) *schema {
	return s.convert(func(c *schema) {
		if c.Ref != "" {
			c.Ref = openAPIV2Prefix + c.Ref
		}
		if len(c.AllOf) == 1 && c.AllOf[0].Ref != "" {
			c.Ref, c.AllOf = c.AllOf[0].Ref, nil
		}
		if c.OneOf != nil {
			c.OneOf, c.Type = nil, "string"
		}
	})
}

func swaggerParameters(params []openAPIParameter) []swaggerParameter {
	var out []swaggerParameter
	for _, p := range params {
		out = append(out, swaggerParameter{Name: p.Name, In: p.In, Description: p.Description, Required: p.Required, Type: p.Schema.Type})
	}
	return out
}

func swaggerOperationOf(op *openAPIOperation) *swaggerOperation {
	if op == nil {
		return nil
	}
	out := &swaggerOperation{
		Description: op.Description, OperationID: op.OperationID,
		Produces:   []string{contentTypeJSON},
		Parameters: swaggerParameters(op.Parameters),
		Responses:  make(map[string]swaggerResponse, len(op.Responses)),
		Action:     op.Action, GVK: op.GVK,
	}
	for code, resp := range op.Responses {
		r := swaggerResponse{Description: resp.Description}
		if m, ok := resp.Content[contentTypeJSON]; ok {
			r.Schema = swaggerSchema(m.Schema)
		}
		out.Responses[code] = r
	}
	return out
}

// protobuf encodes the document as a gnostic openapi_v2.Document. Maps are
// written in key order, so the bytes (and the ETag) are the same on every
// start. The field numbers are OpenAPIv2.proto's.
func (d *swaggerDoc) protobuf() []byte {
	var b pbMessage
	b.str(1, d.Swagger)
	b.msg(2, func(m *pbMessage) {
		m.str(1, d.Info.Title)
		m.str(2, d.Info.Version)
	})
	b.msg(8, func(paths *pbMessage) {
		for _, path := range slices.Sorted(maps.Keys(d.Paths)) {
			item := d.Paths[path]
			paths.msg(2, func(named *pbMessage) { // NamedPathItem
				named.str(1, path)
				named.msg(2, func(m *pbMessage) { // PathItem
					if item.Get != nil {
						m.msg(2, item.Get.protobuf)
					}
					if item.Patch != nil {
						m.msg(8, item.Patch.protobuf)
					}
					for _, p := range item.Parameters {
						m.msg(9, p.protobuf)
					}
				})
			})
		}
	})
	b.msg(9, func(defs *pbMessage) {
		for _, name := range slices.Sorted(maps.Keys(d.Definitions)) {
			defs.msg(1, namedSchema(name, d.Definitions[name]))
		}
	})
	return b
}

// protobuf encodes an Operation.
func (op *swaggerOperation) protobuf(m *pbMessage) {
	m.str(3, op.Description)
	m.str(5, op.OperationID)
	for _, p := range op.Produces {
		m.str(6, p)
	}
	for _, p := range op.Parameters {
		m.msg(8, p.protobuf)
	}
	m.msg(9, func(rs *pbMessage) { // Responses
		for _, code := range slices.Sorted(maps.Keys(op.Responses)) {
			resp := op.Responses[code]
			rs.msg(1, func(named *pbMessage) { // NamedResponseValue
				named.str(1, code)
				named.msg(2, func(v *pbMessage) { // ResponseValue
					v.msg(1, func(r *pbMessage) { // Response
						r.str(1, resp.Description)
						if resp.Schema != nil {
							r.msg(2, func(item *pbMessage) { // SchemaItem
								item.msg(1, resp.Schema.protobuf)
							})
						}
					})
				})
			})
		}
	})
	m.extension(13, "x-kubernetes-action", op.Action)
	m.extension(13, "x-kubernetes-group-version-kind", op.GVK)
}

// protobuf encodes a ParametersItem holding a query or path parameter.
func (p swaggerParameter) protobuf(m *pbMessage) {
	m.msg(1, func(param *pbMessage) { // Parameter
		param.msg(2, func(nonBody *pbMessage) { // NonBodyParameter
			sub, typeField := protowire.Number(3), protowire.Number(6) // QueryParameterSubSchema
			if p.In == "path" {
				sub, typeField = 4, 5 // PathParameterSubSchema
			}
			nonBody.msg(sub, func(s *pbMessage) {
				s.boolean(1, p.Required)
				s.str(2, p.In)
				s.str(3, p.Description)
				s.str(4, p.Name)
				s.str(typeField, p.Type)
			})
		})
	})
}

func namedSchema(name string, s *schema) func(*pbMessage) {
	return func(m *pbMessage) {
		m.str(1, name)
		m.msg(2, s.protobuf)
	}
}

// protobuf encodes a Schema.
func (s *schema) protobuf(m *pbMessage) {
	m.str(1, s.Ref)
	m.str(2, s.Format)
	m.str(4, s.Description)
	if s.Default != nil {
		m.msg(5, func(a *pbMessage) { a.str(2, string(s.Default)) }) // Any: JSON is YAML
	}
	for _, r := range s.Required {
		m.str(19, r)
	}
	if s.AdditionalProperties != nil {
		m.msg(21, func(ap *pbMessage) { ap.msg(1, s.AdditionalProperties.protobuf) })
	}
	if s.Type != "" {
		m.msg(22, func(t *pbMessage) { t.str(1, s.Type) })
	}
	if s.Items != nil {
		m.msg(23, func(items *pbMessage) { items.msg(1, s.Items.protobuf) })
	}
	for _, a := range s.AllOf {
		m.msg(24, a.protobuf)
	}
	if s.Properties != nil {
		m.msg(25, func(props *pbMessage) {
			for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
				props.msg(1, namedSchema(name, s.Properties[name]))
			}
		})
	}
	if len(s.GVK) > 0 {
		m.extension(31, "x-kubernetes-group-version-kind", s.GVK)
	}
	if s.PreserveUnknownFields {
		m.extension(31, "x-kubernetes-preserve-unknown-fields", true)
	}
}

// pbMessage is a protobuf message being appended to.
type pbMessage []byte

// str appends a string field; an empty string is the default and is left
// out, as proto3 does.
func (m *pbMessage) str(num protowire.Number, s string) {
	if s == "" {
		return
	}
	*m = protowire.AppendTag(*m, num, protowire.BytesType)
	*m = protowire.AppendString(*m, s)
}

func (m *pbMessage) boolean(num protowire.Number, v bool) {
	if !v {
		return
	}
	*m = protowire.AppendTag(*m, num, protowire.VarintType)
	*m = protowire.AppendVarint(*m, 1)
}

// msg appends an embedded message that build writes; it is written even
// when empty, since a present message differs from an absent one.
func (m *pbMessage) msg(num protowire.Number, build func(*pbMessage)) {
	var sub pbMessage
	build(&sub)
	*m = protowire.AppendTag(*m, num, protowire.BytesType)
	*m = protowire.AppendBytes(*m, sub)
}

// extension appends a vendor extension (a NamedAny) whose value is v in
// YAML; JSON is YAML, which is how kube-openapi reads it.
func (m *pbMessage) extension(num protowire.Number, name string, v any) {
	yaml, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("httpapi: an OpenAPI extension does not encode: %v", err)) // v is a string, bool or GVK
	}
	m.msg(num, func(named *pbMessage) {
		named.str(1, name)
		named.msg(2, func(a *pbMessage) { a.str(2, string(yaml)) })
	})
}
