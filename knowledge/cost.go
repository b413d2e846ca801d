package knowledge

import "fmt"

// The cost model: what a connection slot costs a worker in memory and file
// descriptors (docs/cost-model.md). host-memory, worker-fd-limit and
// host-fd-limit judge a configuration by it; gen sizes one by it, so that
// what gen writes is what lint accepts.

// Memory model (docs/cost-model.md), module defaults on x86-64.
const (
	slotBytes     = 416               // ngx_connection_t and its two events, preallocated per slot
	requestBytes  = 512 + 1024 + 4096 // connection_pool_size, client_header_buffer_size, request_pool_size
	tlsBytes      = 16 * 1024         // ssl_buffer_size
	proxyBytes    = 4096 + 8*4096     // proxy_buffer_size + proxy_buffers 8 4k (fastcgi_* alike)
	upstreamBytes = 416 + 512         // the backend connection's slot and pool
	// gzip: the deflate state nginx allocates for a response (window bits 15,
	// memLevel 8: 8 KiB + 16 + 128 KiB + 128 KiB, ngx_http_gzip_filter_module.c)
	// and gzip_buffers 32 4k, held only while a response is compressed.
	gzipBytes = 8192 + 16 + (1 << 17) + (1 << 17) + 32*4096
	// gzipShare is the part of busy connections assumed to be compressing at
	// once: only text types are compressed, and only while the response is
	// produced; images, fonts and files sent with sendfile hold no zlib state.
	gzipShare = 4
)

// ListenBacklog is the listen backlog nginx asks for when listen sets none:
// NGX_LISTEN_BACKLOG, 511 on Linux (src/os/unix/ngx_linux_config.h); the
// kernel cuts it to net.core.somaxconn.
const ListenBacklog = 511

// MemoryPerConnection estimates the memory one busy worker_connections slot
// holds on average: the preallocated slot, the pools and header buffer of
// its request, a TLS buffer, a quarter of the gzip state (see gzipShare), and
// for a proxy the buffers of the proxied request, shared by the two slots
// (client and backend) the request takes.
func MemoryPerConnection(tls, gzip, proxy bool) (bytes int, parts []string) {
	bytes = slotBytes + requestBytes
	parts = []string{"5.9 KiB slot, pools and headers"}
	if tls {
		bytes += tlsBytes
		parts = append(parts, "16 KiB TLS buffer")
	}
	if gzip {
		bytes += gzipBytes / gzipShare
		parts = append(parts, fmt.Sprintf("1 in %d compressing with %d KiB of gzip state", gzipShare, gzipBytes>>10))
	}
	if proxy {
		bytes += proxyBytes + upstreamBytes
		bytes /= 2
		parts = append(parts, "36 KiB buffers per proxied request, which takes 2 slots")
	}
	return bytes, parts
}

// MemoryShare is the part of the host's memory nginx's connections may use
// before host-memory reports it.
const MemoryShare = 0.5

// The descriptor model (docs/cost-model.md). worker_connections counts every
// connection a worker holds, the backend ones included, so sockets never
// take more than worker_connections descriptors: a proxied request uses two
// slots (client and backend), which is why a proxy serves at most half of
// worker_connections clients per worker. Beyond the sockets, a worker holds
// files: at most one per slot (a file being sent, or a proxied response
// buffered to a temporary file), plus the open_file_cache entries, logs and
// listening sockets.

// SocketsFloor is the descriptors a worker holds when every slot is open:
// the sockets and the open_file_cache entries. A limit below it makes
// accept() and connect() fail with "Too many open files" before
// worker_connections is reached (nginx warns at start when
// worker_connections alone exceeds the limit).
func SocketsFloor(workerConnections, cacheMax int) int {
	return workerConnections + cacheMax + IdleWorkerFDs
}

// IdleWorkerFDs are the descriptors a worker holds before any connection:
// listening sockets, log files, the channel to the master, epoll and
// eventfd. Measured with nginx 1.22.1 (one listener, no access log): 10 in
// /proc/PID/fd of an idle worker, and with worker_rlimit_nofile 64 and
// worker_connections 64, 55 of 80 concurrent requests were answered before
// accept4() failed with "Too many open files" (docs/cost-model.md).
const IdleWorkerFDs = 10

// FDsNeeded is a limit that cannot run out: a socket and a file per slot,
// the open_file_cache entries, and 64 for logs, listening sockets and the
// channel to the master.
func FDsNeeded(workerConnections, cacheMax int) int {
	return 2*workerConnections + cacheMax + 64
}

// ConnectionsWithin is the most worker_connections whose FDsNeeded stays
// within limit, at least 1.
func ConnectionsWithin(limit, cacheMax int) int {
	return max(1, (limit-cacheMax-64)/2)
}

// ProxyClients is how many clients one worker can proxy at once: each
// proxied request holds a client slot and a backend slot.
func ProxyClients(workerConnections int) int { return workerConnections / 2 }

// CacheWithin is how many open_file_cache entries (want at most) fit in a
// worker's open-file limit beside workerConnections connections, each
// counted as FDsNeeded counts it (a socket and a file per slot, 64 spare):
// want when it fits, else what is left in whole hundreds, and 0 when fewer
// than 100 are left. It is the budget gen sizes the cache it adds to a
// tree whose main numbers stay by (templates' fitExisting), and lint --fix
// adds no more: the cache never takes the descriptors accept() needs.
func CacheWithin(limit, workerConnections, want int) int {
	room := limit - FDsNeeded(workerConnections, 0)
	switch {
	case room >= want:
		return want
	case room >= 100:
		return room / 100 * 100
	}
	return 0
}
