package patch

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// YAMLToJSON converts a server-side apply body written in block YAML, as
// clients send one (kubectl sends JSON; client-go's REST client sends what
// it is given), to JSON. It reads the block YAML a Kubernetes object is
// written in: mappings, sequences ("- " items, mappings inside them),
// plain, single- and double-quoted scalars, comments, and flow values that
// are JSON. dups names each key set twice in one mapping as goyaml's
// strict decoding does (`line 9: key "foo" already set in map`); the last
// value wins. Anchors, tags, multi-line scalars and multiple documents are
// refused with an error. Kubernetes: sigs.k8s.io/yaml's YAMLToJSONStrict.
func YAMLToJSON(body []byte) (out []byte, dups []string, err error) {
	y := &yamlReader{}
	for i, text := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || (trimmed == "---" && len(y.lines) == 0) {
			continue
		}
		if strings.ContainsAny(text[:len(text)-len(strings.TrimLeft(text, " \t"))], "\t") {
			return nil, nil, fmt.Errorf("yaml: line %d: found a tab character that violates indentation", i+1)
		}
		y.lines = append(y.lines, yamlLine{num: i + 1, indent: len(text) - len(strings.TrimLeft(text, " ")), text: strings.TrimRight(text, " ")})
	}
	if len(y.lines) == 0 {
		return []byte("null"), nil, nil
	}
	v, err := y.node(y.lines[0].indent)
	if err == nil && y.pos < len(y.lines) {
		err = fmt.Errorf("yaml: line %d: did not find expected key", y.lines[y.pos].num)
	}
	if err != nil {
		return nil, nil, err
	}
	out, err = json.Marshal(v)
	return out, y.dups, err
}

type yamlLine struct {
	num, indent int
	text        string // with its indentation
}

type yamlReader struct {
	lines []yamlLine
	pos   int
	dups  []string
}

// node reads the mapping or sequence whose lines start at column indent.
func (y *yamlReader) node(indent int) (any, error) {
	l := y.lines[y.pos]
	if rest := l.text[l.indent:]; rest == "-" || strings.HasPrefix(rest, "- ") {
		return y.sequence(indent)
	}
	return y.mapping(indent)
}

func (y *yamlReader) sequence(indent int) (any, error) {
	list := []any{}
	for y.pos < len(y.lines) {
		l := y.lines[y.pos]
		rest := l.text[l.indent:]
		if l.indent != indent || (rest != "-" && !strings.HasPrefix(rest, "- ")) {
			break
		}
		item := strings.TrimLeft(strings.TrimPrefix(rest, "-"), " ")
		if item == "" {
			y.pos++
			v, err := y.child(indent, false)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			continue
		}
		col := len(l.text) - len(item)
		if _, _, isKey := splitKey(item); isKey {
			// "- key: value" opens a mapping at the key's column.
			y.lines[y.pos] = yamlLine{num: l.num, indent: col, text: strings.Repeat(" ", col) + item}
			v, err := y.mapping(col)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			continue
		}
		v, err := scalar(item, l.num)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		y.pos++
	}
	return list, nil
}

func (y *yamlReader) mapping(indent int) (any, error) {
	m := map[string]any{}
	for y.pos < len(y.lines) {
		l := y.lines[y.pos]
		if l.indent < indent {
			break
		}
		if l.indent > indent {
			return nil, fmt.Errorf("yaml: line %d: mapping values are not allowed in this context", l.num)
		}
		key, value, ok := splitKey(l.text[l.indent:])
		if !ok {
			return nil, fmt.Errorf("yaml: line %d: could not find expected ':'", l.num)
		}
		k, err := scalar(key, l.num)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprint(k)
		if _, dup := m[name]; dup {
			y.dups = append(y.dups, fmt.Sprintf("line %d: key %q already set in map", l.num, name))
		}
		y.pos++
		var v any
		if value == "" {
			v, err = y.child(indent, true)
		} else {
			v, err = scalar(value, l.num)
		}
		if err != nil {
			return nil, err
		}
		m[name] = v
	}
	return m, nil
}

// child reads the value of a key or item with nothing after it: the lines
// indented deeper, or (for a key) a sequence at the key's own column; null
// when there are none.
func (y *yamlReader) child(indent int, sameIndentSeq bool) (any, error) {
	if y.pos >= len(y.lines) {
		return nil, nil
	}
	l := y.lines[y.pos]
	rest := l.text[l.indent:]
	isSeq := rest == "-" || strings.HasPrefix(rest, "- ")
	if l.indent > indent || (sameIndentSeq && l.indent == indent && isSeq) {
		return y.node(l.indent)
	}
	return nil, nil
}

// splitKey splits "key: value" (value may be empty) at the first ": " or
// final ":" outside quotes.
func splitKey(s string) (key, value string, ok bool) {
	if s == "" || s[0] == '{' || s[0] == '[' {
		return "", "", false
	}
	start := 0
	if s[0] == '"' || s[0] == '\'' {
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return "", "", false
		}
		start = end + 2
	}
	for i := start; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ') {
			return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
		}
		if s[i] == '#' && i > 0 && s[i-1] == ' ' {
			return "", "", false
		}
	}
	return "", "", false
}

var (
	yamlInt   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
)

// scalar reads one value written on a line: quoted, a JSON flow value, or
// plain (null, a boolean, a number, else a string).
func scalar(s string, line int) (any, error) {
	switch {
	case s == "":
		return nil, nil
	case strings.HasPrefix(s, `"`):
		end := closingQuote(s)
		if end < 0 {
			return nil, fmt.Errorf("yaml: line %d: found unexpected end of stream", line)
		}
		if rest := strings.TrimSpace(s[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, fmt.Errorf("yaml: line %d: did not find expected key", line)
		}
		v, err := strconv.Unquote(s[:end+1])
		if err != nil {
			return nil, fmt.Errorf("yaml: line %d: found unknown escape character", line)
		}
		return v, nil
	case strings.HasPrefix(s, "'"):
		inner, rest, ok := strings.Cut(strings.ReplaceAll(s[1:], "''", "\x00"), "'")
		if rest = strings.TrimSpace(rest); !ok || (rest != "" && !strings.HasPrefix(rest, "#")) {
			return nil, fmt.Errorf("yaml: line %d: found unexpected end of stream", line)
		}
		return strings.ReplaceAll(inner, "\x00", "'"), nil
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		var v any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("yaml: line %d: flow values are read only when they are JSON", line)
		}
		return v, nil
	case strings.ContainsAny(s[:1], "&*!|>%@`"):
		return nil, fmt.Errorf("yaml: line %d: %q is not read here (anchors, aliases, tags and block scalars)", line, s[:1])
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	switch s {
	case "null", "Null", "NULL", "~":
		return nil, nil
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	if yamlInt.MatchString(s) || yamlFloat.MatchString(s) {
		return json.Number(strings.TrimPrefix(s, "+")), nil
	}
	return s, nil
}

// closingQuote returns the index of the quote closing the double-quoted
// string s starts with, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
