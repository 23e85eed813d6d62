// Command miniplane is the Kubernetes control plane in miniature, in one
// binary. main only parses the command line; run does the work so tests can
// call it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "miniplane:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "miniplane:", err)
		os.Exit(1)
	}
}

// usageError is a mistake on the command line; main exits 2 for it.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `miniplane is the Kubernetes control plane in miniature.

Usage:
  miniplane <command> [flags]

Commands:
  demo    start a whole control plane in this process and narrate the control
          loop as it runs: an RC and a Service, scaling, a crash, a leader
          failover, cascading deletion (about 17 seconds; --pace to change)
  serve   run the control plane with a Kubernetes API that kubectl talks to,
          until Ctrl-C
  sim     run the control plane in the deterministic simulator: one seed,
          one trace, faults injected, invariants checked
  help    print this text

Run 'miniplane <command> -h' for a command's flags.
`

// run executes one miniplane command line.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "demo":
		return runDemo(rest, stdout, stderr)
	case "serve":
		return runServe(rest, stdout, stderr)
	case "sim":
		return runSim(rest, stdout, stderr)
	default:
		fmt.Fprint(stderr, usage)
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

// newFlagSet returns a flag set that reports errors to stderr and never
// exits the process.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("miniplane "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args into fs; -h prints the flags and is not an error.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	if err != nil {
		return false, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return false, usageError{fmt.Sprintf("unexpected arguments: %v", fs.Args())}
	}
	return false, nil
}

// newLogger returns a console logger on w: warnings and errors only unless
// verbose, then debug.
func newLogger(w io.Writer, verbose bool) *zap.Logger {
	level := zapcore.WarnLevel
	if verbose {
		level = zapcore.DebugLevel
	}
	enc := zap.NewDevelopmentEncoderConfig()
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.AddSync(w), level)
	return zap.New(core)
}

// signalContext returns a context cancelled on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
