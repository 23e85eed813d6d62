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
// plain, single- and double-quoted scalars (over several lines too), block
// scalars (`|`, `>`, with `-` or `+` chomping: what controller-gen writes
// descriptions in), comments, and flow values that are JSON. dups names each key set twice in one mapping as goyaml's
// strict decoding does (`line 9: key "foo" already set in map`); the last
// value wins. Anchors, tags and multiple documents are refused with an
// error. Kubernetes: sigs.k8s.io/yaml's YAMLToJSONStrict.
func YAMLToJSON(body []byte) (out []byte, dups []string, err error) {
	y := &yamlReader{raw: strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n")}
	for i, text := range y.raw {
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
	raw   []string   // the body's lines, for block scalars
	lines []yamlLine // the lines that are not blank or comments
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
		switch {
		case value == "":
			v, err = y.child(indent, true)
		case blockHeader.MatchString(value):
			v = y.blockScalar(value, l.num, indent)
		default:
			v, err = scalar(y.continued(value, indent), l.num)
		}
		if err != nil {
			return nil, err
		}
		m[name] = v
	}
	return m, nil
}

// blockHeader matches a block scalar's header: literal or folded, with
// its chomping indicator, and a comment.
var blockHeader = regexp.MustCompile(`^[|>][-+]?( +#.*)?$`)

// blockScalar reads the block scalar whose header ends line num (1-based),
// a value of a key at column indent: the raw lines after it that are blank
// or indented deeper, without the first one's indentation. A literal
// scalar keeps their line breaks, a folded one joins lines with a space
// (a blank line is a line break); the chomping indicator says what is
// kept of the final line breaks: one (clip), none (-) or all (+).
func (y *yamlReader) blockScalar(header string, num, indent int) string {
	var lines []string
	blockIndent := -1
	last := num
	for i := num; i < len(y.raw); i++ {
		text := strings.TrimRight(y.raw[i], " ")
		if text == "" {
			lines = append(lines, "")
			continue
		}
		in := len(text) - len(strings.TrimLeft(text, " "))
		if in <= indent {
			break
		}
		if blockIndent < 0 {
			blockIndent = in
		}
		lines = append(lines, text[min(in, blockIndent):])
		last = i + 1
	}
	for y.pos < len(y.lines) && y.lines[y.pos].num <= last {
		y.pos++
	}
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines, trailing = lines[:len(lines)-1], trailing+1
	}
	var b strings.Builder
	for i, line := range lines {
		switch {
		case i == 0:
		case header[0] == '|' || line == "":
			b.WriteByte('\n')
		case lines[i-1] == "": // the blank line was the break
		case strings.HasPrefix(line, " ") || strings.HasPrefix(lines[i-1], " "):
			b.WriteByte('\n') // more indented lines are not folded
		default:
			b.WriteByte(' ')
		}
		b.WriteString(line)
	}
	if len(lines) == 0 {
		return ""
	}
	switch {
	case strings.HasPrefix(header[1:], "-"):
	case strings.HasPrefix(header[1:], "+"):
		b.WriteString(strings.Repeat("\n", trailing+1))
	default:
		b.WriteByte('\n')
	}
	return b.String()
}

// continued returns the scalar value of a key at column indent with the
// lines that continue it, indented deeper, folded in with a space: a plain
// or quoted scalar may span lines. A plain scalar's continuation holding
// "key: " is not one: the mapping then refuses it, as YAML does.
func (y *yamlReader) continued(value string, indent int) string {
	quoted := value[0] == '"' || value[0] == '\''
	for y.pos < len(y.lines) && y.lines[y.pos].indent > indent {
		text := strings.TrimSpace(y.lines[y.pos].text)
		if _, _, isKey := splitKey(text); isKey && !quoted {
			break
		}
		value += " " + text
		y.pos++
	}
	return value
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
