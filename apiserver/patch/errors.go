package patch

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Reason says which kind of client mistake an [Error] reports; it is the reason of the
// Kubernetes Status the HTTP layer answers with.
type Reason string

const (
	// ReasonBadRequest: the patch itself is malformed (not JSON, not the shape its type
	// requires, an unknown operation or directive). HTTP 400.
	ReasonBadRequest Reason = "BadRequest"
	// ReasonInvalid: the patch is well formed but cannot be applied to this object (a JSON
	// patch "test" that fails, a path that does not exist, a result that is not an object).
	// HTTP 422.
	ReasonInvalid Reason = "Invalid"
	// ReasonUnsupportedMediaType: the patch type is not one this package knows, or the
	// body of an apply is YAML that is not JSON. HTTP 415.
	ReasonUnsupportedMediaType Reason = "UnsupportedMediaType"
)

// Code returns the HTTP status code that goes with the reason.
func (r Reason) Code() int {
	switch r {
	case ReasonInvalid:
		return http.StatusUnprocessableEntity
	case ReasonUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	default:
		return http.StatusBadRequest
	}
}

// Error is a patch the server refuses. Field is where in the patch or the object the
// problem is, as a JSON path (".spec.containers[name=web].ports" style for merge and
// strategic patches, a JSON pointer such as "/spec/replicas" for a JSON patch), or ""
// when the problem is the body as a whole. Message says what was wrong.
type Error struct {
	Reason  Reason
	Field   string
	Message string
}

// Error returns the message, prefixed with the field when there is one.
func (e *Error) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

func badRequest(field, format string, args ...any) *Error {
	return &Error{Reason: ReasonBadRequest, Field: field, Message: fmt.Sprintf(format, args...)}
}

func unsupported(format string, args ...any) *Error {
	return &Error{Reason: ReasonUnsupportedMediaType, Message: fmt.Sprintf(format, args...)}
}

func invalid(field, format string, args ...any) *Error {
	return &Error{Reason: ReasonInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ConflictCause is one field that an apply wanted to change while another manager owns
// it. Field is the field's path in Kubernetes' dotted form (".spec.replicas",
// ".spec.containers[name=\"web\"].image"). Manager, Operation ("Apply" or "Update"),
// Subresource, APIVersion and Time are those of the owner's managedFields entry.
type ConflictCause struct {
	Manager     string
	Operation   string
	Subresource string
	APIVersion  string
	Time        string
	Field       string
}

// Owner names the owner as kube-apiserver does in conflict messages: `"kubectl"` for an
// owner that applied, `"kubectl" with subresource "scale" using v1 at
// 2026-11-21T21:00:00Z` for one that updated (through a subresource).
func (c ConflictCause) Owner() string {
	owner := fmt.Sprintf("%q", c.Manager)
	if c.Subresource != "" {
		owner += fmt.Sprintf(" with subresource %q", c.Subresource)
	}
	if c.Operation == operationUpdate {
		owner += " using " + c.APIVersion
		if c.Time != "" {
			owner += " at " + c.Time
		}
	}
	return owner
}

// Message returns the cause as one line: `conflict with "kubectl-scale" using v1 at
// 2026-11-21T21:00:00Z: .spec.replicas`.
func (c ConflictCause) Message() string {
	return "conflict with " + c.Owner() + ": " + c.Field
}

// Conflict is a server-side apply refused because it would change fields that other
// managers own and force was not set. Causes lists every such field, sorted by field and
// then owner. The HTTP layer answers 409 Conflict with [Conflict.Status].
type Conflict struct {
	Causes []ConflictCause
}

// Error is kube-apiserver's message for the conflicts, which kubectl prints: with one,
// `Apply failed with 1 conflict: conflict with "kubectl-scale": .spec.replicas`; with more,
// "Apply failed with 2 conflicts: conflicts with \"a\":\n- .spec.replicas\n- ..." grouped
// by owner, owners sorted.
func (c *Conflict) Error() string {
	if len(c.Causes) == 1 {
		return "Apply failed with 1 conflict: " + c.Causes[0].Message()
	}
	byOwner := map[string][]string{}
	var owners []string
	for _, cause := range c.Causes {
		o := cause.Owner()
		if _, ok := byOwner[o]; !ok {
			owners = append(owners, o)
		}
		byOwner[o] = append(byOwner[o], cause.Field)
	}
	sort.Strings(owners)
	var lines []string
	for _, o := range owners {
		lines = append(lines, "conflicts with "+o+":")
		for _, f := range byOwner[o] {
			lines = append(lines, "- "+f)
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(c.Causes), strings.Join(lines, "\n"))
}

func sortCauses(causes []ConflictCause) {
	sort.Slice(causes, func(i, j int) bool {
		if causes[i].Field != causes[j].Field {
			return causes[i].Field < causes[j].Field
		}
		return causes[i].Owner() < causes[j].Owner()
	})
}
