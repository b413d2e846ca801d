package rules

// All is every rule nginxtune has, sorted by id. Adding a rule means adding
// it here; docs/rules.md is generated from this list.
var All = []*Rule{
	accessLogUnbuffered,
	errorLogDebug,
	gzipCompLevel,
	gzipCompressedTypes,
	gzipTypesMissing,
	hostEphemeralPorts,
	hostFDLimit,
	hostFileMax,
	hostMemory,
	hostModuleMissing,
	hostSomaxconn,
	hostWorkers,
	includeCycle,
	includeMissing,
	keepaliveDisabled,
	keepaliveRequestsLow,
	listenHTTP2Deprecated,
	openFileCache,
	proxyKeepaliveHeaders,
	sendfileOff,
	sslDirectiveRemoved,
	sslSessionCache,
	syntax,
	tcpNodelayOff,
	unusedSuppression,
	upstreamKeepalive,
	workerFDLimit,
	workerProcesses,
}
