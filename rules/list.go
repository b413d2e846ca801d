// Package rules holds nginxtune's checks of a parsed nginx configuration.
//
// A rule is one value, its documentation (Doc) and its check, in the file
// named after its id (upstream-keepalive: upstream_keepalive.go), with its
// cases in fixtures/rules/<id>/; the rules run are the ones in All, an
// explicit list; nothing registers itself. Helpers several rules share
// are in files named for what they hold (taint.go, values.go, proxy.go,
// addresses.go, ...). The framework that runs them (Pass, scheduling,
// suppressions, fixes) is package rules/engine, which knows no rule. Rules
// never print; the report package formats what they find.
package rules

import "github.com/nginxtune/nginxtune/rules/engine"

// All is every rule nginxtune has, sorted by id. Adding a rule means adding
// it here, its value (Doc and check) in the file named after its id
// (upstream-keepalive: upstream_keepalive.go) and its cases in
// fixtures/rules/<id>/ (TestRuleFiles, TestRuleFixtureFolders); docs/rules.md is
// generated from this list.
var All = []*engine.Rule{
	accessLogUnbuffered,
	addHeaderContentType,
	aliasSlashMissing,
	aliasTraversal,
	allowWithoutDeny,
	autoindexOn,
	defaultServerMissing,
	directiveArgs,
	directiveContext,
	directiveDuplicate,
	duplicateDefinition,
	errorLogDebug,
	errorLogOff,
	gzipCompLevel,
	gzipCompressedTypes,
	gzipTypesMissing,
	headerInheritance,
	headerInjection,
	headerMultiline,
	hostEphemeralPorts,
	hostFDLimit,
	hostFileMax,
	hostMemory,
	hostModuleMissing,
	hostSomaxconn,
	hostSpoofing,
	hostWorkers,
	hstsMissing,
	ifIsEvil,
	includeCycle,
	includeMissing,
	includeOutsideTree,
	keepaliveDisabled,
	keepaliveRequestsLow,
	listenHTTP2Deprecated,
	mapDefaultMissing,
	openFileCache,
	originRegex,
	proxyBufferingOff,
	proxyDNSStatic,
	proxyKeepaliveHeaders,
	proxyPassNoResolver,
	proxyPassNormalized,
	regexCaptureMissing,
	regexRedos,
	regexUnanchored,
	resolverPublic,
	returnBypassesAccess,
	rewriteCycle,
	rootFilesystem,
	sendfileOff,
	serverNameConflict,
	serverTokens,
	sslDirectiveRemoved,
	sslSessionCache,
	sslStaplingNoResolver,
	ssrf,
	statusPageExposed,
	syntax,
	tcpNodelayOff,
	tryFilesProxy,
	undefinedReference,
	unknownDirective,
	unusedSuppression,
	upstreamKeepalive,
	validReferersNone,
	weakTLS,
	workerFDLimit,
	workerProcesses,
}
