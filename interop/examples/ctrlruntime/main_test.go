package ctrlruntime

import (
	"testing"

	"github.com/miniplane/miniplane/interop/examples/internal/inproc"
)

func TestMain(m *testing.M) { inproc.Main(m) }
