package report

// GitHubMessage escapes a workflow command's message for a printer outside
// this package (the same escaping as GitHub's).
func GitHubMessage(s string) string { return ghData(s) }

// GitHubProperty escapes a workflow command's property value (file, title)
// for a printer outside this package.
func GitHubProperty(s string) string { return ghProperty(s) }
