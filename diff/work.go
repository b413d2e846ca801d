package diff

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/route"
)

// maxWork bounds the regular-expression matches one run asks route for:
// every request is matched against the regex server names at its port
// and the regex locations of a server there, in both trees, so a tree
// with thousands of each asks for their product (10,000 regex names made
// a run of hours). Past the bound diff refuses to run rather than hang.
const maxWork = 20_000_000

// checkWork estimates the matches asking reqs of both trees takes: for
// each request, the regex server names listening on its port and the
// most regex locations of one server there, over both trees; an error
// past maxWork.
func checkWork(reqs []route.Request, trees ...*Tree) error {
	names, locs := map[int]int{}, map[int]int{}
	for _, t := range trees {
		for _, s := range t.cfg.Servers {
			n := 0
			for _, nm := range s.Names {
				if strings.HasPrefix(nm.Value, "~") {
					n++
				}
			}
			l := regexLocations(s.Locs)
			seen := map[int]bool{}
			for _, li := range s.Listens {
				if seen[li.Port] {
					continue
				}
				seen[li.Port] = true
				names[li.Port] += n
				locs[li.Port] = max(locs[li.Port], l)
			}
		}
	}
	work := 0
	for _, r := range reqs {
		work += 1 + names[r.Port] + 2*locs[r.Port]
		if work > maxWork {
			return fmt.Errorf("the trees ask for more than %d regular-expression matches (%d requests, up to %d regex server names and %d regex locations at one port): diff does not run on trees this large", maxWork, len(reqs), names[r.Port], locs[r.Port])
		}
	}
	return nil
}

// regexLocations counts the regex locations in locs and below.
func regexLocations(locs []*route.Loc) int {
	n := 0
	for _, l := range locs {
		if l.Mod == "~" || l.Mod == "~*" {
			n++
		}
		n += regexLocations(l.Locs)
	}
	return n
}
