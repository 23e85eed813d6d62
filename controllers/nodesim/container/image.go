package container

import (
	"strings"
)

// The image rule. The simulated kubelets pull no image, so whether an
// image exists is decided from its name alone:
//
//   - an image listed in Images.Present exists, whatever follows;
//   - an image listed in Images.Missing does not;
//   - a reference that does not parse (upper case in the repository, a
//     space, an empty name) is an InvalidImageName;
//   - a tag (or a repository) that says it does not exist — containing
//     "does-not-exist", "doesnotexist", "nonexistent", "non-existent",
//     "notexist", "not-exist" or "invalid" — is not found;
//   - a repository one or two edits away from a well-known one (known),
//     and not itself well known, is a misspelling: "ngnix", "busybx",
//     "postgress", "ubunto" (one edit for names of five letters or fewer,
//     two above; swapping two neighbouring letters is one edit);
//   - anything else exists: "nginx", "nginx:1.27", "busybox",
//     "postgres:16", "registry.k8s.io/pause:3.10", "myorg/myapp:v2".
//
// An entry of Present or Missing matches an image by its name as written
// ("nginx:1.27"), by its repository ("nginx", any tag) or by its
// normalised name ("docker.io/library/nginx:1.27").

// known lists the repositories the misspelling rule knows: the images
// learners use most. An image equal to one of them is never a misspelling.
var known = [...]string{
	"alpine", "amazonlinux", "busybox", "caddy", "cassandra", "centos", "consul", "couchdb",
	"debian", "eclipse-temurin", "elasticsearch", "fedora", "ghost", "golang", "gradle",
	"grafana/grafana", "haproxy", "hello-world", "httpd", "influxdb", "jenkins/jenkins",
	"kibana", "mariadb", "maven", "memcached", "mongo", "mono", "mysql", "neo4j", "nats",
	"nginx", "node", "openjdk", "perl", "php", "postgres", "python", "rabbitmq", "redis",
	"registry", "ruby", "rust", "tomcat", "traefik", "ubuntu", "vault", "wordpress",
	"curlimages/curl", "nicolaka/netshoot", "prom/prometheus", "bitnami/kubectl",
	"nginxinc/nginx-unprivileged", "registry.k8s.io/pause", "registry.k8s.io/e2e-test-images/agnhost",
	"registry.k8s.io/busybox", "gcr.io/google-samples/hello-app", "quay.io/prometheus/prometheus",
}

// missingWords are what a tag or repository says when it does not exist.
var missingWords = [...]string{"does-not-exist", "doesnotexist", "nonexistent", "non-existent", "notexist", "not-exist", "invalid"}

// Images is the image rule's configuration: images that exist or not
// beyond what the rule says. Its zero value is the rule alone.
type Images struct {
	// Present lists images that exist whatever the rule says (a private
	// image whose name looks like a misspelling).
	Present []string
	// Missing lists images that do not exist.
	Missing []string
}

// PullResult is what pulling an image comes to.
type PullResult int

const (
	// Pulled: the image exists.
	Pulled PullResult = iota
	// NotFound: the repository exists, the tag does not.
	NotFound
	// NoRepository: the repository does not exist (or needs credentials
	// the simulator does not have): a misspelling, or listed missing.
	NoRepository
	// InvalidName: the reference does not parse.
	InvalidName
)

// Ref is an image reference taken apart, as the container runtime reads
// it: "nginx" is docker.io/library/nginx:latest.
type Ref struct {
	Domain, Path, Tag, Digest string
}

// Full is the normalised name: "docker.io/library/nginx:latest".
func (r Ref) Full() string {
	s := r.Domain + "/" + r.Path
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// short is the repository as people write it: "nginx", "grafana/grafana",
// "registry.k8s.io/pause".
func (r Ref) short() string {
	if r.Domain == "docker.io" {
		return strings.TrimPrefix(r.Path, "library/")
	}
	return r.Domain + "/" + r.Path
}

// ParseRef takes an image reference apart, or reports that it does not
// parse.
func ParseRef(image string) (Ref, bool) {
	var r Ref
	rest := image
	if i := strings.IndexByte(rest, '@'); i >= 0 {
		rest, r.Digest = rest[:i], rest[i+1:]
		if r.Digest == "" {
			return Ref{}, false
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i > strings.LastIndexByte(rest, '/') {
		rest, r.Tag = rest[:i], rest[i+1:]
		if r.Tag == "" {
			return Ref{}, false
		}
	}
	if r.Tag == "" && r.Digest == "" {
		r.Tag = "latest"
	}
	first, after, hasSlash := strings.Cut(rest, "/")
	switch {
	case hasSlash && (strings.ContainsAny(first, ".:") || first == "localhost"):
		r.Domain, r.Path = first, after
	case hasSlash:
		r.Domain, r.Path = "docker.io", rest
	default:
		r.Domain, r.Path = "docker.io", "library/"+rest
	}
	if r.Path == "" || strings.HasSuffix(r.Path, "/") || strings.Contains(r.Path, "//") {
		return Ref{}, false
	}
	for i := 0; i < len(r.Path); i++ {
		c := r.Path[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._-/", c) >= 0) {
			return Ref{}, false
		}
	}
	for i := 0; i < len(r.Tag); i++ {
		c := r.Tag[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-", c) >= 0) {
			return Ref{}, false
		}
	}
	return r, true
}

// Pull says whether image can be pulled, by the rule, and if not, the
// container runtime's error.
func (im Images) Pull(image string) (PullResult, string) {
	ref, ok := ParseRef(image)
	if !ok {
		return InvalidName, "couldn't parse image name " + quote(image) + ": invalid reference format"
	}
	switch {
	case im.lists(im.Present, image, ref):
		return Pulled, ""
	case im.lists(im.Missing, image, ref):
		return NoRepository, noRepository(ref)
	case saysMissing(ref.Path):
		return NoRepository, noRepository(ref)
	case saysMissing(ref.Tag):
		full := ref.Full()
		return NotFound, "rpc error: code = NotFound desc = failed to pull and unpack image " + quote(full) +
			": failed to resolve reference " + quote(full) + ": " + full + ": not found"
	case misspelt(ref.short()):
		return NoRepository, noRepository(ref)
	}
	return Pulled, ""
}

func noRepository(ref Ref) string {
	full := ref.Full()
	return "rpc error: code = Unknown desc = failed to pull and unpack image " + quote(full) +
		": failed to resolve reference " + quote(full) +
		": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed"
}

func quote(s string) string { return `"` + s + `"` }

// lists reports whether list names image, whose reference is ref.
func (Images) lists(list []string, image string, ref Ref) bool {
	for _, e := range list {
		if e == image || e == ref.Full() || e == ref.short() || e == ref.Domain+"/"+ref.Path {
			return true
		}
	}
	return false
}

// saysMissing reports whether s says it names nothing that exists.
func saysMissing(s string) bool {
	s = strings.ToLower(s)
	for _, w := range missingWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// misspelt reports whether repo is a near miss of a well-known repository.
func misspelt(repo string) bool {
	for _, k := range known {
		if repo == k {
			return false
		}
	}
	for _, k := range known {
		limit := 2
		if len(k) <= 5 {
			limit = 1
		}
		if d := editDistance(repo, k, limit); d >= 1 && d <= limit {
			return true
		}
	}
	return false
}

// editDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours count one
// each), or limit+1 when it is above limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	// Three rows of the dynamic programme: two back, one back, this one.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

// Size is a stand-in for the size of image in bytes, for the Pulled
// event's message: between 1 and 200 MB, the same for the same name.
func Size(image string) int64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(image); i++ {
		h ^= uint64(image[i])
		h *= 1099511628211
	}
	return 1_000_000 + int64(h%199_000_000)
}
