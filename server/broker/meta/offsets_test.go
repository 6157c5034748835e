package meta

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestOffsetManager_FastjsonKeys_PersistReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "consumerOffset.json")
	m, err := NewOffsetManager(path, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	m.Commit("G", "T", 1, 34)
	m.Commit("G", "T", 0, 12)
	m.Commit("H", "T", 0, 5)
	if got, want := string(m.AppendJSON(nil)), `{"offsetTable":{"T@G":{0:12,1:34},"T@H":{0:5}}}`; got != want {
		t.Fatalf("AppendJSON = %s, want %s", got, want)
	}
	if err := m.Persist(false); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), `0:12`) {
		t.Fatalf("consumerOffset.json: %s, %v", b, err)
	}
	r, err := NewOffsetManager(path, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if r.Query("G", "T", 1) != 34 || r.Query("G", "T", 2) != -1 {
		t.Fatalf("reloaded: %v", r.QueryAll("G", "T"))
	}
	if g := r.GroupsOfTopic("T"); len(g) != 2 || g[0] != "G" || g[1] != "H" {
		t.Fatalf("GroupsOfTopic = %v", g)
	}
	r.RemoveGroup("G")
	if r.Query("G", "T", 0) != -1 || r.Query("H", "T", 0) != 5 {
		t.Fatal("RemoveGroup")
	}
}
