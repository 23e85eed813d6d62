package podenv

import "strings"

// Expand replaces each $(VAR) in s by mapping's value for VAR, as the
// kubelet expands env values, commands and args: "$$" is a "$", a
// reference mapping does not know stays as written, and a "$" that starts
// no reference is itself. Kubernetes: expansion.Expand.
func Expand(s string, mapping func(string) (string, bool)) string {
	if strings.IndexByte(s, '$') < 0 {
		return s
	}
	var b strings.Builder
	checkpoint := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		b.WriteString(s[checkpoint:i])
		read, isVar, advance := readVariable(s[i+1:])
		if isVar {
			if v, ok := mapping(read); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + read + ")")
			}
		} else {
			b.WriteString(read)
		}
		i += advance
		checkpoint = i + 1
	}
	return b.String() + s[checkpoint:]
}

// readVariable reads what follows a "$": a variable's name in parentheses
// (isVar), an escaped "$", or the "$" and the byte after it. advance is
// how many bytes of s it took. Kubernetes: tryReadVariableName.
func readVariable(s string) (read string, isVar bool, advance int) {
	switch s[0] {
	case '$':
		return "$", false, 1
	case '(':
		if end := strings.IndexByte(s[1:], ')'); end >= 0 {
			return s[1 : end+1], true, end + 2
		}
		return "$(", false, 1
	}
	return "$" + s[:1], false, 1
}

// mappingOf looks names up in each of maps in turn. Kubernetes:
// expansion.MappingFuncFor.
func mappingOf(maps ...*ordered) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for _, m := range maps {
			if v, ok := m.get(name); ok {
				return v, true
			}
		}
		return "", false
	}
}
