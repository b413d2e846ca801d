package route

import (
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxserve"
)

// corpusDir is the shared corpus, beside the repository.
const corpusDir = "../../shared/corpus"

// corpusTrees builds servable trees from corpus files nginx accepted
// (nginxserve.CorpusTrees).
func corpusTrees(t *testing.T, limit int) []routeTree {
	var out []routeTree
	for _, c := range nginxserve.CorpusTrees(t, corpusDir, limit) {
		out = append(out, routeTree{name: c.Name, files: c.Files})
	}
	return out
}

// fixtureTrees are the route fixtures: complete main files.
func fixtureTrees(t *testing.T) []routeTree {
	paths, _ := filepath.Glob("../fixtures/route/*.conf")
	if len(paths) == 0 {
		t.Fatal("no route fixtures")
	}
	var out []routeTree
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases, _ := fixtureCases(t, string(b))
		tr := routeTree{name: filepath.Base(p), files: map[string][]byte{"nginx.conf": b}}
		for _, c := range cases {
			tr.cases = append(tr.cases, c.req)
		}
		out = append(out, tr)
	}
	return out
}

// TestAgreesWithNginx compares route with real nginx on generated
// requests; NGINXTUNE_ROUTE_CORPUS=N widens the corpus sample (0: all).
func TestAgreesWithNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("serves with real nginx")
	}
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	limit := 80
	if v := os.Getenv("NGINXTUNE_ROUTE_CORPUS"); v != "" {
		if v == "0" {
			limit = 0
		} else if n, err := strconv.Atoi(v); err == nil {
			limit = n
		}
	}
	for _, set := range []struct {
		name    string
		trees   []routeTree
		perTree int
		min     int // trees that must be served
	}{
		{"fixtures", fixtureTrees(t), 400, len(fixtureTrees(t))},
		{"corpus", corpusTrees(t, limit), 120, 50},
	} {
		t.Run(set.name, func(t *testing.T) {
			ag := &agreement{skipReasons: map[string]int{}, uncertainWhy: map[string]int{}}
			rng := rand.New(rand.NewSource(1))
			for _, tr := range set.trees {
				t.Run(strings.ReplaceAll(tr.name, "/", "_"), func(t *testing.T) { runTree(t, tr, rng, ag, set.perTree) })
			}
			t.Logf("%s: %d trees served, %d skipped; %d requests: %d answered by both with route certain, %d agree (%.2f %%); %d route marked uncertain; %d no answer from nginx",
				set.name, ag.trees, ag.skipped, ag.requests, ag.certain, ag.agreed, 100*float64(ag.agreed)/float64(max(1, ag.certain)), ag.uncertain, ag.inconclusive)
			for why, n := range ag.skipReasons {
				t.Logf("skipped %d: %s", n, why)
			}
			for why, n := range ag.uncertainWhy {
				t.Logf("route uncertain %d: %s", n, why)
			}
			for _, d := range ag.disagreements {
				t.Log("disagree:", d)
			}
			if ag.trees < set.min {
				t.Errorf("%d trees served, want at least %d", ag.trees, set.min)
			}
			if ag.certain == 0 || float64(ag.agreed) < 0.99*float64(ag.certain) {
				t.Errorf("agreement %d/%d is below 99 %%", ag.agreed, ag.certain)
			}
		})
	}
}
