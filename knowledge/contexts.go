package knowledge

// ContextKey names, as the directive table's context keys do ("http",
// "if-location", "stream-server", ...), the context a directive stands in
// given the names of the blocks around it from "main" in (its context
// stack); "" inside blocks nginxtune cannot place (an unknown module's).
func ContextKey(names []string) string {
	if len(names) == 0 {
		return ""
	}
	last := names[len(names)-1]
	switch last {
	case "main", "events", "http", "stream", "mail", "rtmp":
		return last
	}
	family := ""
	for _, n := range names {
		switch n {
		case "http", "stream", "mail", "rtmp":
			family = n
		}
	}
	switch family {
	case "http":
		switch last {
		case "server", "location", "upstream", "limit_except":
			return last
		case "if":
			if len(names) >= 2 && names[len(names)-2] == "server" {
				return "if-server"
			}
			if len(names) >= 2 && names[len(names)-2] == "location" {
				return "if-location"
			}
		}
	case "stream":
		switch last {
		case "server":
			return "stream-server"
		case "upstream":
			return "stream-upstream"
		}
	case "mail":
		if last == "server" {
			return "mail-server"
		}
	case "rtmp":
		switch last {
		case "server":
			return "rtmp-server"
		case "application":
			return "rtmp-application"
		case "recorder":
			return "rtmp-recorder"
		}
	}
	return ""
}
