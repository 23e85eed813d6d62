package apiserver

// This file holds the validation every kind shares: object metadata, the name
// formats (DNS labels and subdomains, qualified names, port names), label
// keys and values, ports, IP addresses and CIDRs, and resource quantities.
// The per-kind rules live in validate_<kind>.go and call these.
//
// Kubernetes: k8s.io/apimachinery/pkg/util/validation (the formats and their
// messages), k8s.io/apimachinery/pkg/api/validation (object metadata) and the
// shared helpers of pkg/apis/core/validation. The messages are Kubernetes'
// word for word, so that kubectl users see what they would see against a real
// cluster.
//
// Validators append to a FieldErrors and return it, and carry the path of
// what they check as a fieldPath that is only joined into a string when an
// error is reported: a valid object is checked without allocating.

import (
	"encoding/json"
	"math/big"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Length limits, as in Kubernetes.
const (
	dns1123LabelMaxLength     = 63
	dns1123SubdomainMaxLength = 253
	dns1035LabelMaxLength     = 63
	qualifiedNameMaxLength    = 63
	portNameMaxLength         = 15
	// totalAnnotationSizeLimit bounds the sum of the lengths of an object's
	// annotation keys and values (256 KiB).
	totalAnnotationSizeLimit = 256 * (1 << 10)
)

// The regular expressions Kubernetes documents its formats with. miniplane
// checks the formats with plain loops; the expressions appear only in the
// messages, where Kubernetes prints them.
const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
	quantityFmt         = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
)

// Kubernetes' messages for values that do not have the expected format.
const (
	msgDNS1123Label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " +
		"and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " +
		"regex used for validation is '" + dns1123LabelFmt + "')"
	msgDNS1123Subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
		"and must start and end with an alphanumeric character (e.g. 'example.com', " +
		"regex used for validation is '" + dns1123SubdomainFmt + "')"
	msgDNS1035Label = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', " +
		"start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', " +
		"regex used for validation is '" + dns1035LabelFmt + "')"
	msgQualifiedNamePart = "must consist of alphanumeric characters, '-', '_' or '.', " +
		"and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', " +
		"regex used for validation is '" + qualifiedNameFmt + "')"
	msgQualifiedNameSlashes = "a qualified name " + msgQualifiedNamePart +
		" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
	msgLabelValue = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', " +
		"and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', " +
		"regex used for validation is '" + labelValueFmt + "')"
	msgNotDots           = "must not contain dots"
	msgEmpty             = "must be non-empty"
	msgPortRange         = "must be between 1 and 65535, inclusive"
	msgNonNegative       = "must be greater than or equal to 0"
	msgImmutable         = "field is immutable"
	msgInvalidIP         = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
	msgInvalidCIDR       = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
	msgQuantityFormat    = "quantities must match the regular expression '" + quantityFmt + "'"
	msgQuantitySuffix    = "unable to parse quantity's suffix"
	msgNotKubeFinalizer  = "name is neither a standard finalizer name nor is it fully qualified"
	msgBothFinalizers    = "finalizer orphan and foregroundDeletion cannot be both set"
	msgOneController     = "Only one reference can have Controller set to true. Found \"true\" in references for "
	msgNameRequired      = "name or generateName is required"
	msgNamespaceOnScoped = "not allowed on this type"
)

// maxLenMsg is Kubernetes' message for a value longer than n characters.
func maxLenMsg(n int) string {
	return "must be no more than " + strconv.Itoa(n) + " characters"
}

// ---- paths ----

// fieldPath is a Path kept in pieces until an error needs it as a string: a
// root ("spec", "spec.template.spec") and a few steps below it.
type fieldPath struct {
	root  Path
	steps [maxPathSteps]pathStep
	n     int
}

// maxPathSteps is enough for the deepest path any validator builds below its
// root, e.g. volumes[0].projected.sources[0].secret.items[0].mode (nine).
const maxPathSteps = 12

type pathStep struct {
	kind  byte   // '.' a child field, '[' a list index, 'k' a map key
	name  string // the field name or map key
	index int    // the list index
}

func pathAt(root Path) fieldPath { return fieldPath{root: root} }

func (p fieldPath) step(s pathStep) fieldPath {
	if p.n == maxPathSteps {
		panic("apiserver: field path deeper than maxPathSteps")
	}
	p.steps[p.n] = s
	p.n++
	return p
}

func (p fieldPath) child(name string) fieldPath { return p.step(pathStep{kind: '.', name: name}) }
func (p fieldPath) index(i int) fieldPath       { return p.step(pathStep{kind: '[', index: i}) }
func (p fieldPath) key(k string) fieldPath      { return p.step(pathStep{kind: 'k', name: k}) }

// path joins the pieces into the Path an error reports.
func (p fieldPath) path() Path {
	out := p.root
	for _, s := range p.steps[:p.n] {
		switch s.kind {
		case '.':
			out = out.Child(s.name)
		case '[':
			out = out.Index(s.index)
		default:
			out = out.Key(s.name)
		}
	}
	return out
}

// jsonValue is a bad value that an error prints as JSON, as Kubernetes prints
// structured values. It keeps pointers (tolerationSeconds, controller) out
// of the message, which Go syntax would print as addresses.
type jsonValue struct{ v any }

func (j jsonValue) String() string {
	b, err := json.Marshal(j.v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// sortedKeys returns the keys of m in order. Validators walk maps in key
// order when they report errors, so that the same object always gets the
// same message.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ---- formats ----

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
func isAlnum(c byte) bool      { return isLowerAlnum(c) || 'A' <= c && c <= 'Z' }

// isDNS1123Label reports whether s matches dns1123LabelFmt (ignoring length).
func isDNS1123Label(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !isLowerAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// isDNS1123Subdomain reports whether s matches dns1123SubdomainFmt (ignoring
// length): DNS-1123 labels joined by dots.
func isDNS1123Subdomain(s string) bool {
	for {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return isDNS1123Label(s)
		}
		if !isDNS1123Label(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}

// isQualifiedNamePart reports whether s matches qualifiedNameFmt (ignoring
// length); label values use the same characters.
func isQualifiedNamePart(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// dns1123LabelMsgs returns why value is not a DNS-1123 label, or nil.
// Kubernetes: validation.IsDNS1123Label.
func dns1123LabelMsgs(value string) []string {
	var msgs []string
	if len(value) > dns1123LabelMaxLength {
		msgs = append(msgs, maxLenMsg(dns1123LabelMaxLength))
	}
	if !isDNS1123Label(value) {
		if isDNS1123Subdomain(value) {
			msgs = append(msgs, msgNotDots)
		} else {
			msgs = append(msgs, msgDNS1123Label)
		}
	}
	return msgs
}

// dns1123SubdomainMsgs returns why value is not a DNS-1123 subdomain, or nil.
// Kubernetes: validation.IsDNS1123Subdomain.
func dns1123SubdomainMsgs(value string) []string {
	var msgs []string
	if len(value) > dns1123SubdomainMaxLength {
		msgs = append(msgs, maxLenMsg(dns1123SubdomainMaxLength))
	}
	if !isDNS1123Subdomain(value) {
		msgs = append(msgs, msgDNS1123Subdomain)
	}
	return msgs
}

// dns1035LabelMsgs returns why value is not a DNS-1035 label, or nil.
// Kubernetes: validation.IsDNS1035Label.
func dns1035LabelMsgs(value string) []string {
	var msgs []string
	if len(value) > dns1035LabelMaxLength {
		msgs = append(msgs, maxLenMsg(dns1035LabelMaxLength))
	}
	if value == "" || value[0] < 'a' || value[0] > 'z' || !isDNS1123Label(value) {
		msgs = append(msgs, msgDNS1035Label)
	}
	return msgs
}

// qualifiedNameMsgs returns why value is not a qualified name (an optional
// DNS-subdomain prefix and '/', then a name of up to 63 characters), or nil.
// Label keys, annotation keys, finalizers and taint keys are qualified names.
// Kubernetes: validation.IsQualifiedName.
func qualifiedNameMsgs(value string) []string {
	var msgs []string
	name := value
	if i := strings.IndexByte(value, '/'); i >= 0 {
		prefix := value[:i]
		name = value[i+1:]
		if strings.IndexByte(name, '/') >= 0 {
			return []string{msgQualifiedNameSlashes}
		}
		if prefix == "" {
			msgs = append(msgs, "prefix part "+msgEmpty)
		} else {
			for _, m := range dns1123SubdomainMsgs(prefix) {
				msgs = append(msgs, "prefix part "+m)
			}
		}
	}
	if name == "" {
		msgs = append(msgs, "name part "+msgEmpty)
	} else if len(name) > qualifiedNameMaxLength {
		msgs = append(msgs, "name part "+maxLenMsg(qualifiedNameMaxLength))
	}
	if !isQualifiedNamePart(name) {
		msgs = append(msgs, "name part "+msgQualifiedNamePart)
	}
	return msgs
}

// labelValueMsgs returns why value is not a label value, or nil.
// Kubernetes: validation.IsValidLabelValue.
func labelValueMsgs(value string) []string {
	var msgs []string
	if len(value) > qualifiedNameMaxLength {
		msgs = append(msgs, maxLenMsg(qualifiedNameMaxLength))
	}
	if value != "" && !isQualifiedNamePart(value) {
		msgs = append(msgs, msgLabelValue)
	}
	return msgs
}

// portNameMsgs returns why value is not an IANA service name, the format of
// container port names and of named target ports, or nil. Kubernetes:
// validation.IsValidPortName.
func portNameMsgs(value string) []string {
	var msgs []string
	if len(value) > portNameMaxLength {
		msgs = append(msgs, maxLenMsg(portNameMaxLength))
	}
	charset, letter := value != "", false
	for i := 0; i < len(value); i++ {
		c := value[i]
		if !isLowerAlnum(c) && c != '-' {
			charset = false
		}
		if 'a' <= c && c <= 'z' {
			letter = true
		}
	}
	if !charset {
		msgs = append(msgs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !letter {
		msgs = append(msgs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(value, "--") {
		msgs = append(msgs, "must not contain consecutive hyphens")
	}
	if value != "" && (value[0] == '-' || value[len(value)-1] == '-') {
		msgs = append(msgs, "must not begin or end with a hyphen")
	}
	return msgs
}

// nameFunc checks an object name, or with prefix a generateName (which may
// end in '-', as the random suffix follows it), and returns why it is not
// valid, or nil. Kubernetes: validation.ValidateNameFunc.
//
// Kubernetes also refuses a name that cannot be one segment of a URL path
// (path.IsValidPathSegmentName: ".", "..", or one with '/' or '%'). Every
// rule here is a DNS rule, and a DNS subdomain or label is always such a
// segment (only a-z, 0-9, '-' and '.', never empty between dots), so that
// check has nothing to add and is not made; TestNameRulesArePathSegments
// holds the rules to it.
type nameFunc func(name string, prefix bool) []string

// maskTrailingDash stands in a letter for the '-' a generateName may end
// with, so that the prefix can be checked with the name's format.
func maskTrailingDash(name string) string {
	if len(name) > 1 && name[len(name)-1] == '-' {
		return name[:len(name)-1] + "a"
	}
	return name
}

// nameIsDNSSubdomain is the name rule of most kinds. Kubernetes:
// validation.NameIsDNSSubdomain.
func nameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return dns1123SubdomainMsgs(name)
}

// nameIsDNSLabel is the name rule of namespaces. Kubernetes:
// validation.NameIsDNSLabel.
func nameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return dns1123LabelMsgs(name)
}

// nameIsDNS1035Label is the name rule of services, whose names become DNS
// labels that must start with a letter. Kubernetes:
// validation.NameIsDNS1035Label.
func nameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return dns1035LabelMsgs(name)
}

// ---- small field checks ----

// invalidEach appends one Invalid error per message. It is generic so that
// value is only boxed into an interface when there is an error to report.
func invalidEach[T any](errs apierrors.FieldErrors, p fieldPath, value T, msgs []string) apierrors.FieldErrors {
	if len(msgs) == 0 {
		return errs
	}
	path := p.path()
	for _, m := range msgs {
		errs = append(errs, Invalid(path, value, m))
	}
	return errs
}

// validateNonNegative: Kubernetes' ValidateNonnegativeField.
func validateNonNegative(errs apierrors.FieldErrors, value int64, p fieldPath) apierrors.FieldErrors {
	if value < 0 {
		errs = append(errs, Invalid(p.path(), value, msgNonNegative))
	}
	return errs
}

// validateDNS1123LabelField reports a field that must be a DNS-1123 label.
func validateDNS1123LabelField(errs apierrors.FieldErrors, value string, p fieldPath) apierrors.FieldErrors {
	return invalidEach(errs, p, value, dns1123LabelMsgs(value))
}

// validateDNS1123SubdomainField reports a field that must be a DNS-1123
// subdomain.
func validateDNS1123SubdomainField(errs apierrors.FieldErrors, value string, p fieldPath) apierrors.FieldErrors {
	return invalidEach(errs, p, value, dns1123SubdomainMsgs(value))
}

// validateQualifiedNameField reports a field that must be a qualified name.
func validateQualifiedNameField(errs apierrors.FieldErrors, value string, p fieldPath) apierrors.FieldErrors {
	return invalidEach(errs, p, value, qualifiedNameMsgs(value))
}

// validateNameField reports a field that names another object (a node, a
// service account) with that kind's name rule.
func validateNameField(errs apierrors.FieldErrors, value string, rule nameFunc, p fieldPath) apierrors.FieldErrors {
	return invalidEach(errs, p, value, rule(value, false))
}

// validatePortNumber reports a port number outside 1..65535. Kubernetes:
// validation.IsValidPortNum.
func validatePortNumber(errs apierrors.FieldErrors, port int32, p fieldPath) apierrors.FieldErrors {
	if port < 1 || port > 65535 {
		errs = append(errs, Invalid(p.path(), port, msgPortRange))
	}
	return errs
}

// validatePortNumOrName checks a port given as a number or as the name of a
// container port (a service's targetPort, a probe's port). Kubernetes:
// ValidatePortNumOrName.
func validatePortNumOrName(errs apierrors.FieldErrors, port api.IntOrString, p fieldPath) apierrors.FieldErrors {
	if port.Type == api.String {
		return invalidEach(errs, p, port.StrVal, portNameMsgs(port.StrVal))
	}
	if port.IntVal < 1 || port.IntVal > 65535 {
		errs = append(errs, Invalid(p.path(), int(port.IntVal), msgPortRange))
	}
	return errs
}

// supportedProtocols are the port protocols, in Kubernetes' (sorted) order.
var supportedProtocols = [...]string{string(api.ProtocolSCTP), string(api.ProtocolTCP), string(api.ProtocolUDP)}

// validateProtocol reports a missing or unknown port protocol.
func validateProtocol(errs apierrors.FieldErrors, proto api.Protocol, p fieldPath) apierrors.FieldErrors {
	switch proto {
	case api.ProtocolTCP, api.ProtocolUDP, api.ProtocolSCTP:
		return errs
	case "":
		return append(errs, Required(p.path(), ""))
	}
	return append(errs, NotSupported(p.path(), proto, supportedProtocols[:]...))
}

// ---- IPs and CIDRs ----

// parseIP parses an IPv4 or IPv6 address without a zone.
func parseIP(s string) (netip.Addr, bool) {
	addr, err := netip.ParseAddr(s)
	if err != nil || addr.Zone() != "" {
		return netip.Addr{}, false
	}
	return addr, true
}

// validateIP reports a value that is not an IP address. Kubernetes:
// validation.IsValidIP.
func validateIP(errs apierrors.FieldErrors, value string, p fieldPath) apierrors.FieldErrors {
	if _, ok := parseIP(value); !ok {
		errs = append(errs, Invalid(p.path(), value, msgInvalidIP))
	}
	return errs
}

// validateNonSpecialIP reports an address that cannot be an endpoint:
// unspecified, loopback or link-local. Kubernetes: ValidateNonSpecialIP.
func validateNonSpecialIP(errs apierrors.FieldErrors, value string, p fieldPath) apierrors.FieldErrors {
	addr, ok := parseIP(value)
	if !ok {
		return append(errs, Invalid(p.path(), value, "must be a valid IP address"))
	}
	addr = addr.Unmap()
	if addr.IsUnspecified() {
		errs = append(errs, Invalid(p.path(), value, "may not be unspecified ("+value+")"))
	}
	if addr.IsLoopback() {
		errs = append(errs, Invalid(p.path(), value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if addr.IsLinkLocalUnicast() {
		errs = append(errs, Invalid(p.path(), value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if addr.IsLinkLocalMulticast() {
		errs = append(errs, Invalid(p.path(), value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// parseCIDR parses a CIDR such as "10.244.1.0/24".
func parseCIDR(s string) (netip.Prefix, bool) {
	prefix, err := netip.ParsePrefix(s)
	return prefix, err == nil
}

// validateCIDR reports a value that is not a CIDR. Kubernetes:
// validation.IsValidCIDR.
func validateCIDR(errs apierrors.FieldErrors, value string, p fieldPath) apierrors.FieldErrors {
	if _, ok := parseCIDR(value); !ok {
		errs = append(errs, Invalid(p.path(), value, msgInvalidCIDR))
	}
	return errs
}

// ---- quantities ----

// quantity is a parsed resource quantity: its value, exactly.
type quantity struct {
	negative bool
	digits   string // the number without its sign, e.g. "1.5"
	suffix   string // "", "m", "Ki", "e3", ...
}

// parseQuantity checks s against Kubernetes' quantity syntax: a decimal
// number and an optional suffix, either an SI or binary multiplier ("m",
// "k", "Mi") or a decimal exponent ("e3"). It returns the message of the
// problem, or "".
func parseQuantity(s string) (quantity, string) {
	var q quantity
	rest := s
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		q.negative = rest[0] == '-'
		rest = rest[1:]
	}
	digits, dots, i := 0, 0, 0
	for ; i < len(rest); i++ {
		c := rest[i]
		if c == '.' {
			dots++
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		digits++
	}
	if digits == 0 || dots > 1 {
		return q, msgQuantityFormat
	}
	q.digits, q.suffix = rest[:i], rest[i:]
	for j := 0; j < len(q.suffix); j++ {
		if !strings.ContainsRune("eEinumkKMGTP+-0123456789", rune(q.suffix[j])) {
			return q, msgQuantityFormat
		}
	}
	if _, _, ok := api.QuantityScale(q.suffix); !ok {
		return q, msgQuantitySuffix
	}
	return q, ""
}

// value returns q exactly; only called for a quantity parseQuantity accepted.
func (q quantity) value() *big.Rat {
	digits := q.digits
	if strings.HasSuffix(digits, ".") {
		digits += "0"
	}
	if strings.HasPrefix(digits, ".") {
		digits = "0" + digits
	}
	r, ok := new(big.Rat).SetString(digits)
	if !ok {
		r = new(big.Rat)
	}
	base, exp, _ := api.QuantityScale(q.suffix)
	scale := new(big.Int).Exp(big.NewInt(base), big.NewInt(max(exp, -exp)), nil)
	if exp < 0 {
		r.Quo(r, new(big.Rat).SetInt(scale))
	} else {
		r.Mul(r, new(big.Rat).SetInt(scale))
	}
	if q.negative {
		r.Neg(r)
	}
	return r
}

// nanos returns q in billionths when that is exact and fits in an int64,
// which it does for every quantity a pod spec normally holds; callers fall
// back to value otherwise.
func (q quantity) nanos() (int64, bool) {
	const maxInt64 = 1<<63 - 1
	mul := func(a, b int64) (int64, bool) {
		if a != 0 && b > maxInt64/a {
			return 0, false
		}
		return a * b, true
	}
	var m int64
	pow10, afterDot := int64(9), false
	for i := 0; i < len(q.digits); i++ {
		c := q.digits[i]
		if c == '.' {
			afterDot = true
			continue
		}
		var ok bool
		if m, ok = mul(m, 10); !ok || m > maxInt64-int64(c-'0') {
			return 0, false
		}
		m += int64(c - '0')
		if afterDot {
			pow10--
		}
	}
	base, exp, _ := api.QuantityScale(q.suffix)
	if base == 10 {
		pow10 += exp
	} else {
		var ok bool
		if m, ok = mul(m, 1<<exp); !ok {
			return 0, false
		}
	}
	for ; pow10 < 0; pow10++ {
		if m%10 != 0 {
			return 0, false
		}
		m /= 10
	}
	for ; pow10 > 0; pow10-- {
		var ok bool
		if m, ok = mul(m, 10); !ok {
			return 0, false
		}
	}
	return q.sign(m), true
}

func (q quantity) sign(n int64) int64 {
	if q.negative {
		return -n
	}
	return n
}

// cmp compares two quantities by value: -1, 0 or +1.
func (q quantity) cmp(o quantity) int {
	a, aok := q.nanos()
	b, bok := o.nanos()
	if aok && bok {
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	return q.value().Cmp(o.value())
}

// isInteger reports whether q is a whole number.
func (q quantity) isInteger() bool {
	if n, ok := q.nanos(); ok {
		return n%1_000_000_000 == 0
	}
	return q.value().IsInt()
}

// isZero reports whether q is zero, whatever its sign and suffix.
func (q quantity) isZero() bool {
	return strings.Trim(q.digits, "0.") == ""
}

// validateQuantity reports a value that is not a quantity, or a negative
// one, and returns the parsed quantity and whether it is valid.
func validateQuantity(errs apierrors.FieldErrors, value string, p fieldPath) (apierrors.FieldErrors, quantity, bool) {
	q, problem := parseQuantity(value)
	if problem != "" {
		return append(errs, Invalid(p.path(), value, problem)), q, false
	}
	if q.negative && !q.isZero() {
		return append(errs, Invalid(p.path(), value, msgNonNegative)), q, false
	}
	return errs, q, true
}

// validateResourceQuantities checks every quantity of a resource list (node
// capacity and allocatable), reporting them in name order. Kubernetes:
// ValidateNodeResources, which names each as a child field.
func validateResourceQuantities(errs apierrors.FieldErrors, list api.ResourceList, p fieldPath) apierrors.FieldErrors {
	bad := false
	for _, v := range list {
		if q, problem := parseQuantity(v); problem != "" || q.negative && !q.isZero() {
			bad = true
			break
		}
	}
	if !bad {
		return errs
	}
	for _, name := range sortedKeys(list) {
		errs, _, _ = validateQuantity(errs, list[name], p.child(name))
	}
	return errs
}

// ---- object metadata ----

// metaRules are what differs between kinds in metadata validation.
type metaRules struct {
	// namespaced kinds require metadata.namespace; cluster-scoped ones
	// forbid it.
	namespaced bool
	// name checks metadata.name and metadata.generateName.
	name nameFunc
	// kubeFinalizers adds the core group's rule that a finalizer without a
	// '/' must be one of Kubernetes' own (core kinds; not leases).
	kubeFinalizers bool
}

// Standard finalizer names. Kubernetes: metav1.FinalizerOrphanDependents,
// metav1.FinalizerDeleteDependents, core.FinalizerKubernetes.
const (
	finalizerOrphan     = "orphan"
	finalizerForeground = "foregroundDeletion"
)

func isStandardFinalizer(name string) bool {
	return name == finalizerOrphan || name == finalizerForeground || name == api.FinalizerKubernetes
}

// metadataPath is where an object's metadata sits.
var metadataPath = pathAt("metadata")

// validateObjectMeta checks an object's metadata on create: name and
// generateName, namespace, labels, annotations, owner references and
// finalizers. Kubernetes: ValidateObjectMeta (apimachinery, plus the core
// group's finalizer rule).
//
// It runs on every create and update, so it makes a field's path (a copy
// of p and one step more) only for a field that has something to check,
// or an error to report: each check below finds nothing in an empty
// field. TestValidateObjectMetaIsPlain compares it with calling every check.
func validateObjectMeta(errs apierrors.FieldErrors, m *api.ObjectMeta, rules metaRules, p fieldPath) apierrors.FieldErrors {
	if m.GenerateName != "" {
		if msgs := rules.name(m.GenerateName, true); len(msgs) > 0 {
			errs = invalidEach(errs, p.child("generateName"), m.GenerateName, msgs)
		}
	}
	if m.Name == "" {
		errs = append(errs, Required(p.child("name").path(), msgNameRequired))
	} else if msgs := rules.name(m.Name, false); len(msgs) > 0 {
		errs = invalidEach(errs, p.child("name"), m.Name, msgs)
	}
	if rules.namespaced {
		if m.Namespace == "" {
			errs = append(errs, Required(p.child("namespace").path(), ""))
		} else if msgs := nameIsDNSLabel(m.Namespace, false); len(msgs) > 0 {
			errs = invalidEach(errs, p.child("namespace"), m.Namespace, msgs)
		}
	} else if m.Namespace != "" {
		errs = append(errs, Forbidden(p.child("namespace").path(), msgNamespaceOnScoped))
	}
	if m.Generation < 0 {
		errs = validateNonNegative(errs, m.Generation, p.child("generation"))
	}
	if len(m.Labels) > 0 {
		errs = validateLabels(errs, m.Labels, p.child("labels"))
	}
	if len(m.Annotations) > 0 {
		errs = validateAnnotations(errs, m.Annotations, p.child("annotations"))
	}
	if len(m.OwnerReferences) > 0 {
		errs = validateOwnerReferences(errs, m.OwnerReferences, p.child("ownerReferences"))
	}
	if len(m.Finalizers) > 0 {
		fp := p.child("finalizers")
		errs = validateFinalizers(errs, m.Finalizers, fp)
		if rules.kubeFinalizers {
			for _, f := range m.Finalizers {
				errs = validateKubeFinalizerName(errs, f, fp)
			}
		}
	}
	return errs
}

// validateObjectMetaUpdate checks what an update may not change in metadata:
// the object's identity. Kubernetes: ValidateObjectMetaUpdate.
func validateObjectMetaUpdate(errs apierrors.FieldErrors, m, old *api.ObjectMeta, p fieldPath) apierrors.FieldErrors {
	if m.Name != old.Name {
		errs = append(errs, Invalid(p.child("name").path(), m.Name, msgImmutable))
	}
	if m.Namespace != old.Namespace {
		errs = append(errs, Invalid(p.child("namespace").path(), m.Namespace, msgImmutable))
	}
	if m.UID != old.UID {
		errs = append(errs, Invalid(p.child("uid").path(), m.UID, msgImmutable))
	}
	if !m.CreationTimestamp.Equal(old.CreationTimestamp.Time) {
		errs = append(errs, Invalid(p.child("creationTimestamp").path(), jsonValue{m.CreationTimestamp}, msgImmutable))
	}
	return errs
}

// validateLabels checks label keys and values (metadata.labels, selectors,
// node selectors), with Kubernetes' messages; every error names the whole
// map's path, as in Kubernetes. Kubernetes: ValidateLabels.
func validateLabels(errs apierrors.FieldErrors, labels map[string]string, p fieldPath) apierrors.FieldErrors {
	bad := false
	for k, v := range labels {
		if api.ValidateLabelKey(k) != nil || api.ValidateLabelValue(v) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return errs
	}
	for _, k := range sortedKeys(labels) {
		if err := api.ValidateLabelKey(k); err != nil {
			errs = invalidEach(errs, p, k, orMessage(qualifiedNameMsgs(k), err))
		}
		if err := api.ValidateLabelValue(labels[k]); err != nil {
			errs = invalidEach(errs, p, labels[k], orMessage(labelValueMsgs(labels[k]), err))
		}
	}
	return errs
}

// orMessage returns msgs, or err's message should the two checks ever
// disagree, so that an invalid label is never passed silently.
func orMessage(msgs []string, err error) []string {
	if len(msgs) == 0 {
		return []string{err.Error()}
	}
	return msgs
}

// validateAnnotations checks annotation keys (qualified names, in any case)
// and the annotations' total size. Kubernetes: ValidateAnnotations.
func validateAnnotations(errs apierrors.FieldErrors, annotations map[string]string, p fieldPath) apierrors.FieldErrors {
	size, bad := 0, false
	for k, v := range annotations {
		size += len(k) + len(v)
		if !bad && qualifiedNameMsgs(strings.ToLower(k)) != nil {
			bad = true
		}
	}
	if bad {
		for _, k := range sortedKeys(annotations) {
			errs = invalidEach(errs, p, k, qualifiedNameMsgs(strings.ToLower(k)))
		}
	}
	if size > totalAnnotationSizeLimit {
		errs = append(errs, TooLong(p.path(), totalAnnotationSizeLimit))
	}
	return errs
}

// versionOf returns the version part of an apiVersion ("v1", "apps/v1"), or
// "" when there is none or it does not parse.
func versionOf(apiVersion string) string {
	switch strings.Count(apiVersion, "/") {
	case 0:
		return apiVersion
	case 1:
		return apiVersion[strings.IndexByte(apiVersion, '/')+1:]
	}
	return ""
}

// validateOwnerReferences checks each reference's fields and that at most one
// names the managing controller. As in Kubernetes, every error names the
// list's path, not an item's. Kubernetes: ValidateOwnerReferences.
func validateOwnerReferences(errs apierrors.FieldErrors, refs []api.OwnerReference, p fieldPath) apierrors.FieldErrors {
	firstController := -1 // the index of the first reference with controller set
	for i := range refs {
		ref := &refs[i]
		if versionOf(ref.APIVersion) == "" {
			errs = append(errs, Invalid(p.child("apiVersion").path(), ref.APIVersion, "version must not be empty"))
		}
		if ref.Kind == "" {
			errs = append(errs, Invalid(p.child("kind").path(), ref.Kind, "must not be empty"))
		}
		if ref.Name == "" {
			errs = append(errs, Invalid(p.child("name").path(), ref.Name, "must not be empty"))
		}
		if ref.UID == "" {
			errs = append(errs, Invalid(p.child("uid").path(), ref.UID, "must not be empty"))
		}
		if ref.APIVersion == "v1" && ref.Kind == "Event" {
			errs = append(errs, Invalid(p.path(), jsonValue{ref}, "/v1, Kind=Event is disallowed from being an owner"))
		}
		if ref.Controller != nil && *ref.Controller {
			if firstController < 0 {
				firstController = i
			} else {
				first := &refs[firstController]
				errs = append(errs, Invalid(p.path(), jsonValue{refs},
					msgOneController+first.Kind+"/"+first.Name+" and "+ref.Kind+"/"+ref.Name))
			}
		}
	}
	return errs
}

// validateFinalizers checks finalizer names, and that an object is not asked
// both to orphan and to delete its dependents. Kubernetes:
// ValidateFinalizers.
func validateFinalizers(errs apierrors.FieldErrors, finalizers []string, p fieldPath) apierrors.FieldErrors {
	orphan, foreground := false, false
	for _, f := range finalizers {
		errs = validateQualifiedNameField(errs, f, p)
		orphan = orphan || f == finalizerOrphan
		foreground = foreground || f == finalizerForeground
	}
	if orphan && foreground {
		errs = append(errs, Invalid(p.path(), finalizers, msgBothFinalizers))
	}
	return errs
}

// validateKubeFinalizerName: in the core group a finalizer without a domain
// prefix must be one Kubernetes defines. Kubernetes: validateKubeFinalizerName.
func validateKubeFinalizerName(errs apierrors.FieldErrors, name string, p fieldPath) apierrors.FieldErrors {
	if !strings.Contains(name, "/") && !isStandardFinalizer(name) {
		errs = append(errs, Invalid(p.path(), name, msgNotKubeFinalizer))
	}
	return errs
}
