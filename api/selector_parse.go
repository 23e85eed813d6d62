package api

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseSelector parses a label selector in Kubernetes' syntax, as in `kubectl get pods -l`
// and the labelSelector query parameter: requirements joined by commas, all of which must
// hold.
//
//	key=value   key==value   key!=value     equality, inequality
//	key in (v1,v2)   key notin (v1,v2)      set membership
//	key   !key                              existence
//	key>5   key<5                           integer comparison
//
// Whitespace between tokens is ignored, and the empty string (or only whitespace) parses to
// the empty selector, which matches everything. Keys must be valid label keys and values
// valid label values ([ValidateLabelKey], [ValidateLabelValue]); "key=" compares with the
// empty value. As in Kubernetes, an empty item in a value list is the empty value, so
// "key in ()" means key="" (in Kubernetes' parser, not in its NewRequirement). Two small
// differences from Kubernetes, both deliberate: any item of a value list may be empty
// (Kubernetes rejects some spellings, such as "(a,,)", by accident of its parser), and a NUL
// byte is an ordinary invalid character (Kubernetes stops reading at it).
//
// An error names the token where parsing failed and its byte offset; "app, !)" gives
//
//	unable to parse requirement: found ')' at position 6, expected: identifier
//
// Kubernetes: labels.Parse.
func ParseSelector(s string) (Selector, error) {
	p := selectorParser{tokens: lexSelector(s)}
	reqs, err := p.parse()
	if err != nil {
		return Selector{}, fmt.Errorf("unable to parse requirement: %w", err)
	}
	slices.SortFunc(reqs, compareRequirements)
	return Selector{reqs: reqs}, nil
}

// tokenKind is the lexical class of a selector token.
type tokenKind int

const (
	tokEnd        tokenKind = iota // end of input
	tokIdentifier                  // a key, a value, or the words "in" and "notin"
	tokNot                         // !
	tokEquals                      // =
	tokDoubleEq                    // ==
	tokNotEquals                   // !=
	tokGreater                     // >
	tokLess                        // <
	tokOpenParen                   // (
	tokCloseParen                  // )
	tokComma                       // ,
)

// selectorToken is one lexical token of a selector, with the byte offset where it starts.
type selectorToken struct {
	kind tokenKind
	text string
	pos  int
}

// describe renders the token for an error message.
func (t selectorToken) describe() string {
	if t.kind == tokEnd {
		return "end of string"
	}
	return "'" + t.text + "'"
}

// lexSymbol returns the symbol token at the start of s, which must start with a symbol
// byte. The two-byte symbols "!=" and "==" win over their one-byte prefixes.
func lexSymbol(s string) (tokenKind, int) {
	if strings.HasPrefix(s, "!=") {
		return tokNotEquals, 2
	}
	if strings.HasPrefix(s, "==") {
		return tokDoubleEq, 2
	}
	switch s[0] {
	case '!':
		return tokNot, 1
	case '=':
		return tokEquals, 1
	case '>':
		return tokGreater, 1
	case '<':
		return tokLess, 1
	case '(':
		return tokOpenParen, 1
	case ')':
		return tokCloseParen, 1
	default: // ','
		return tokComma, 1
	}
}

// isSelectorSymbol reports whether c starts a symbol and so ends an identifier.
func isSelectorSymbol(c byte) bool { return strings.IndexByte("!=><(),", c) >= 0 }

// isSelectorSpace reports whether c is whitespace between tokens.
func isSelectorSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// lexSelector splits s into tokens, ending with a tokEnd. Every run of bytes that are neither
// whitespace nor symbols is an identifier; whether it is a valid key or value is for the
// parser to decide, so lexing never fails.
func lexSelector(s string) []selectorToken {
	var tokens []selectorToken
	for i := 0; ; {
		for i < len(s) && isSelectorSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return append(tokens, selectorToken{kind: tokEnd, pos: i})
		}
		if isSelectorSymbol(s[i]) {
			kind, n := lexSymbol(s[i:])
			tokens = append(tokens, selectorToken{kind: kind, text: s[i : i+n], pos: i})
			i += n
			continue
		}
		start := i
		for i < len(s) && !isSelectorSpace(s[i]) && !isSelectorSymbol(s[i]) {
			i++
		}
		tokens = append(tokens, selectorToken{kind: tokIdentifier, text: s[start:i], pos: start})
	}
}

// selectorParser is a recursive-descent parser over the tokens of one selector:
//
//	selector    = [ requirement { "," requirement } ]
//	requirement = "!" key | key [ operator ]
//	operator    = ( "=" | "==" | "!=" ) [ value ]
//	            | ( ">" | "<" ) value
//	            | ( "in" | "notin" ) "(" [ value ] { "," [ value ] } ")"
type selectorParser struct {
	tokens []selectorToken // always ends with tokEnd
	next   int             // index of the next token to consume
}

// peek returns the next token without consuming it.
func (p *selectorParser) peek() selectorToken { return p.tokens[p.next] }

// take consumes and returns the next token; it stays on the final tokEnd.
func (p *selectorParser) take() selectorToken {
	t := p.tokens[p.next]
	if t.kind != tokEnd {
		p.next++
	}
	return t
}

// unexpected is the error for token t where one of expected should have been.
func unexpected(t selectorToken, expected string) error {
	return fmt.Errorf("found %s at position %d, expected: %s", t.describe(), t.pos, expected)
}

// parse parses the whole selector.
func (p *selectorParser) parse() ([]Requirement, error) {
	if p.peek().kind == tokEnd {
		return nil, nil
	}
	var reqs []Requirement
	for {
		r, err := p.parseRequirement()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
		switch t := p.take(); t.kind {
		case tokEnd:
			return reqs, nil
		case tokComma:
			// another requirement must follow
		default:
			return nil, unexpected(t, "',' or end of string")
		}
	}
}

// parseRequirement parses one requirement, leaving the ',' or end after it unconsumed.
func (p *selectorParser) parseRequirement() (Requirement, error) {
	t := p.take()
	if t.kind == tokNot {
		key, err := parseKey(p.take())
		if err != nil {
			return Requirement{}, err
		}
		return makeRequirement(key, OpDoesNotExist, nil), nil
	}
	if t.kind != tokIdentifier {
		return Requirement{}, unexpected(t, "'!' or identifier")
	}
	key, err := parseKey(t)
	if err != nil {
		return Requirement{}, err
	}
	if next := p.peek().kind; next == tokEnd || next == tokComma {
		return makeRequirement(key, OpExists, nil), nil // the separator is parse()'s
	}
	opTok := p.take()
	switch {
	case opTok.kind == tokEquals || opTok.kind == tokDoubleEq || opTok.kind == tokNotEquals:
		op := Operator(opTok.text) // "=", "==" and "!=" spell their operators
		value, err := p.parseOptionalValue()
		if err != nil {
			return Requirement{}, err
		}
		return makeRequirement(key, op, []string{value}), nil
	case opTok.kind == tokGreater || opTok.kind == tokLess:
		op := OpGreaterThan
		if opTok.kind == tokLess {
			op = OpLessThan
		}
		value, err := p.parseIntegerValue(opTok)
		if err != nil {
			return Requirement{}, err
		}
		return makeRequirement(key, op, []string{value}), nil
	case opTok.kind == tokIdentifier && (opTok.text == "in" || opTok.text == "notin"):
		values, err := p.parseValueList()
		if err != nil {
			return Requirement{}, err
		}
		return makeRequirement(key, Operator(opTok.text), values), nil
	default:
		return Requirement{}, unexpected(opTok, "'=', '==', '!=', 'in', 'notin', '>', '<', ',' or end of string")
	}
}

// parseKey checks that t is an identifier holding a valid label key.
func parseKey(t selectorToken) (string, error) {
	if t.kind != tokIdentifier {
		return "", unexpected(t, "identifier")
	}
	if problem := labelKeyProblem(t.text); problem != "" {
		return "", fmt.Errorf("invalid label key %q at position %d: %s", t.text, t.pos, problem)
	}
	return t.text, nil
}

// parseValue checks that t is an identifier holding a valid label value.
func parseValue(t selectorToken) (string, error) {
	if problem := labelValueProblem(t.text); problem != "" {
		return "", fmt.Errorf("invalid label value %q at position %d: %s", t.text, t.pos, problem)
	}
	return t.text, nil
}

// parseOptionalValue parses the value after "=", "==" or "!=": an identifier, or nothing
// (the empty value) when a ',' or the end follows.
func (p *selectorParser) parseOptionalValue() (string, error) {
	switch t := p.peek(); t.kind {
	case tokEnd, tokComma:
		return "", nil
	case tokIdentifier:
		return parseValue(p.take())
	default:
		return "", unexpected(t, "identifier, ',' or end of string")
	}
}

// parseIntegerValue parses the value after ">" or "<": an identifier holding a valid label
// value that is a decimal integer.
func (p *selectorParser) parseIntegerValue(opTok selectorToken) (string, error) {
	t := p.take()
	if t.kind != tokIdentifier {
		return "", unexpected(t, "identifier")
	}
	value, err := parseValue(t)
	if err != nil {
		return "", err
	}
	if _, err := strconv.ParseInt(value, 10, 64); err != nil {
		return "", fmt.Errorf("invalid value %q at position %d: operator '%s' needs an integer", value, t.pos, opTok.text)
	}
	return value, nil
}

// parseValueList parses "(v1,v2,...)" after "in" or "notin". An empty item is the empty
// value, as in Kubernetes: "()" is [""] and "(a,)" is ["", "a"].
func (p *selectorParser) parseValueList() ([]string, error) {
	if t := p.take(); t.kind != tokOpenParen {
		return nil, unexpected(t, "'('")
	}
	var values []string
	for {
		value := ""
		if t := p.peek(); t.kind == tokIdentifier {
			v, err := parseValue(p.take())
			if err != nil {
				return nil, err
			}
			value = v
		} else if t.kind != tokComma && t.kind != tokCloseParen {
			return nil, unexpected(t, "identifier, ',' or ')'")
		}
		values = append(values, value)
		switch t := p.take(); t.kind {
		case tokCloseParen:
			return values, nil
		case tokComma:
			// another value, possibly empty, follows
		default:
			return nil, unexpected(t, "',' or ')'")
		}
	}
}
