package conformance

// The import rules of DESIGN.md ("Packages and the direction of imports"): data flows
// down, I/O sits in the middle, wiring on top. This test fails on any in-repo import edge
// the table does not allow, on gnet outside server/remoting, and on zerolog's global
// logger outside cmd/.

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/skyrocket-mq/skyrocket/"

// allowed lists, per package (and its sub-packages), the in-repo packages it may import.
// A sub-package may also import its parent's other sub-packages.
var allowed = map[string][]string{
	"compat":        {},
	"protocol":      {"compat"},
	"codec/message": {"compat"},
	"codec":         {"protocol", "codec/message", "compat"},
	"configs":       {"compat"},
	"store":         {"codec/message", "compat"},
	// store/timer is the timing wheel: it reads and writes through the store's API.
	"store/timer":     {"store", "codec/message", "compat"},
	"ha":              {"store", "codec/message", "compat"},
	"server/remoting": {"protocol", "codec", "compat"},
	"server/namesrv":  {"server/remoting", "protocol", "configs", "compat"},
	// server/metrics is a leaf: Prometheus collectors over interfaces the broker and the
	// NameServer satisfy, the HTTP endpoint and the health state.
	"server/metrics": {},
	"server/broker": {"server/broker/acl", "server/broker/meta", "server/broker/schedule", "server/broker/transaction",
		"server/broker/stats", "server/broker/clients", "server/broker/consumerfilter",
		"server/remoting", "server/metrics", "protocol", "codec", "codec/message", "store", "store/timer", "ha", "configs", "compat"},
	// The broker's leaf packages never import the broker: they get what they need from it
	// through a dependency struct. Each lists exactly what it imports.
	"server/broker/acl":            {"protocol", "compat"},
	"server/broker/meta":           {"protocol", "compat"},
	"server/broker/schedule":       {"store", "codec/message", "protocol", "compat"},
	"server/broker/transaction":    {"store", "codec/message", "protocol"},
	"server/broker/stats":          {"store", "compat"},
	"server/broker/clients":        {"server/remoting", "protocol"},
	"server/broker/consumerfilter": {"server/broker/filter", "protocol", "compat"},
	// server wires a namesrv and a broker into one process (the all-in-one binary).
	"server":      {"server/namesrv", "server/broker", "server/remoting", "server/metrics", "configs", "compat", "protocol", "store", "ha"},
	"cmd":         {"server", "server/namesrv", "server/broker", "server/broker/acl", "server/remoting", "server/metrics", "configs", "compat", "protocol", "codec", "codec/message", "store", "ha"},
	"conformance": {"*"},
}

// owner returns the table entry that governs pkg: the longest matching prefix.
func owner(pkg string) string {
	best := ""
	for k := range allowed {
		if (pkg == k || strings.HasPrefix(pkg, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	return best
}

func edgeAllowed(from, to string) bool {
	o := owner(from)
	for _, a := range allowed[o] {
		if a == "*" || to == a || strings.HasPrefix(to, a+"/") && owner(to) == a {
			return true
		}
	}
	// within one owner: a package and its sub-packages may import each other
	return owner(to) == o
}

func TestLayering_ImportEdges(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "data" || d.Name() == "java") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() || path == root {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		pkgs = append(pkgs, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pkgs)
	checked := 0
	for _, rel := range pkgs {
		bp, err := build.ImportDir(filepath.Join(root, rel), 0)
		if err != nil {
			continue // no Go files
		}
		if owner(rel) == "" {
			t.Errorf("package %s is not in DESIGN.md's table: add it there and to this test", rel)
			continue
		}
		checked++
		imports := bp.Imports
		if rel == "conformance" || strings.HasPrefix(rel, "conformance/") {
			imports = append(imports, bp.TestImports...)
		}
		for _, imp := range imports {
			switch {
			case strings.HasPrefix(imp, "github.com/panjf2000/gnet"):
				if owner(rel) != "server/remoting" {
					t.Errorf("%s imports gnet: only server/remoting may", rel)
				}
			case imp == "github.com/rs/zerolog/log":
				if owner(rel) != "cmd" {
					t.Errorf("%s uses zerolog's global logger: only cmd/ configures logging", rel)
				}
			case strings.HasPrefix(imp, module):
				to := strings.TrimPrefix(imp, module)
				if !edgeAllowed(rel, to) {
					t.Errorf("import edge %s -> %s is not allowed by DESIGN.md", rel, to)
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d packages checked: the walk is broken", checked)
	}
}

func TestLayering_TableRejectsUpwardEdges(t *testing.T) {
	bad := [][2]string{{"store", "protocol"}, {"protocol", "codec"}, {"server/namesrv", "server/broker"},
		{"server/broker", "server/namesrv"}, {"compat", "protocol"}, {"codec", "server/remoting"}, {"ha", "server/broker"},
		{"server/broker/meta", "server/broker"}, {"server/broker/schedule", "server/broker"},
		{"server/broker/transaction", "server/broker"}, {"server/broker/stats", "server/broker"},
		{"server/broker/clients", "server/broker"}, {"server/broker/consumerfilter", "server/broker"}}
	for _, e := range bad {
		if edgeAllowed(e[0], e[1]) {
			t.Errorf("edge %s -> %s should be refused", e[0], e[1])
		}
	}
	good := [][2]string{{"codec", "codec/message"}, {"server/broker", "store"}, {"cmd/mqbroker", "server/broker"}, {"server/broker/filter", "server/broker"}, {"server/broker", "server/broker/meta"}}
	for _, e := range good {
		if !edgeAllowed(e[0], e[1]) {
			t.Errorf("edge %s -> %s should be allowed", e[0], e[1])
		}
	}
}
