//! splice-pool against what a user would otherwise write:
//!
//! - `splice-pool/get-put`: a pooled pipe's `get` + drop against `pipe2` + `close`
//!   (`std::io::pipe`), per operation, on 1 and 2 threads (the parameter is the thread count).
//! - `splice-pool/tcp-proxy`: a loopback TCP proxy moving n bytes from one connection to
//!   another: `splice_pool::copy` (splice through a pooled pipe of the default 64 KiB, and
//!   through a pool of 1 MiB pipes) against a 64 KiB read/write loop and `std::io::copy`. The client writer and server reader run on their own threads
//!   in every case.
//! - `splice-pool/file-to-socket`: a file of n bytes to a TCP socket: `splice_pool::copy`
//!   (`sendfile`) against a 64 KiB read/write loop.
//! - `splice-pool/async-proxy`: a tokio proxy of n bytes each way over fresh loopback
//!   connections: `splice_pool::tokio::copy_bidirectional` against
//!   `tokio::io::copy_bidirectional`.
//! - `splice-pool/tcp-proxy-cpu`, `splice-pool/file-to-socket-cpu`, `splice-pool/async-proxy-cpu`:
//!   the same copies timed by the CPU time (user + system, `getrusage(RUSAGE_THREAD)`) of the
//!   thread that does the copy instead of the wall clock. The tokio proxy runs on a
//!   current-thread runtime on the bench thread, its two ends on threads of their own, so that
//!   one thread does all of the proxying. Wall clock on a 2-core VM moves 1.3× between runs;
//!   CPU per byte moves far less.

use std::fs::File;
use std::hint::black_box;
use std::io::{Read, Seek, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Barrier;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;
const PROXY_SIZES: [usize; 4] = [64 * KIB, MIB, 16 * MIB, 64 * MIB];
const FILE_SIZES: [usize; 3] = [64 * KIB, MIB, 16 * MIB];
const ASYNC_SIZES: [usize; 3] = [64 * KIB, MIB, 16 * MIB];

fn get_put(c: &mut Criterion) {
    let mut group = c.benchmark_group("splice-pool/get-put");
    let pool = splice_pool::PipePool::global();
    drop(pool.get().unwrap()); // warm this thread's cache
    for threads in [1usize, 2] {
        group.bench_function(BenchmarkId::new("splice-pool", threads), |b| {
            b.iter_custom(|iters| {
                on_threads(threads, || {
                    for _ in 0..iters {
                        drop(black_box(pool.get().unwrap()));
                    }
                })
            })
        });
        group.bench_function(BenchmarkId::new("pipe2+close", threads), |b| {
            b.iter_custom(|iters| {
                on_threads(threads, || {
                    for _ in 0..iters {
                        drop(black_box(std::io::pipe().unwrap()));
                    }
                })
            })
        });
    }
    group.finish();
}

/// Runs `f` on `n` threads at once; the slowest thread's time.
fn on_threads(n: usize, f: impl Fn() + Sync) -> Duration {
    if n == 1 {
        let t = Instant::now();
        f();
        return t.elapsed();
    }
    let barrier = Barrier::new(n);
    thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let t = Instant::now();
                    f();
                    t.elapsed()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).max().unwrap_or_default()
    })
}

fn tcp_pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (b, _) = l.accept().unwrap();
    a.set_nodelay(true).unwrap();
    b.set_nodelay(true).unwrap();
    (a, b)
}

/// A client that writes n bytes on request and a server that reads n bytes and says so;
/// the bench thread is the proxy between `proxy_in` and `proxy_out`.
struct Proxy {
    proxy_in: TcpStream,
    proxy_out: TcpStream,
    to_client: Sender<usize>,
    to_server: Sender<usize>,
    served: Receiver<()>,
}

impl Proxy {
    fn new() -> Proxy {
        let (mut client, proxy_in) = tcp_pair();
        let (proxy_out, mut server) = tcp_pair();
        let (to_client, client_rx) = channel::<usize>();
        let (to_server, server_rx) = channel::<usize>();
        let (served_tx, served) = channel();
        thread::spawn(move || {
            let buf = benches::input(256 * KIB);
            for mut n in client_rx {
                while n > 0 {
                    let k = n.min(buf.len());
                    client.write_all(&buf[..k]).unwrap();
                    n -= k;
                }
            }
        });
        thread::spawn(move || {
            let mut buf = vec![0u8; 256 * KIB];
            for mut n in server_rx {
                while n > 0 {
                    let k = server.read(&mut buf[..n.min(256 * KIB)]).unwrap();
                    assert!(k > 0);
                    n -= k;
                }
                served_tx.send(()).unwrap();
            }
        });
        Proxy { proxy_in, proxy_out, to_client, to_server, served }
    }

    fn run(&mut self, n: usize, copy: &mut dyn FnMut(&mut TcpStream, &mut TcpStream, usize)) {
        self.to_server.send(n).unwrap();
        self.to_client.send(n).unwrap();
        copy(&mut self.proxy_in, &mut self.proxy_out, n);
        self.served.recv().unwrap();
    }
}

fn read_write_loop(from: &mut impl Read, to: &mut impl Write, mut n: usize, buf: &mut [u8]) {
    while n > 0 {
        let len = n.min(buf.len());
        let k = from.read(&mut buf[..len]).unwrap();
        assert!(k > 0);
        to.write_all(&buf[..k]).unwrap();
        n -= k;
    }
}

/// `routine` timed by the wall clock or, with `cpu`, by the calling thread's CPU time.
fn timed(iters: u64, cpu: bool, mut routine: impl FnMut()) -> Duration {
    let (wall, cpu0) = (Instant::now(), benches::thread_cpu());
    for _ in 0..iters {
        routine();
    }
    if cpu { benches::thread_cpu() - cpu0 } else { wall.elapsed() }
}

fn tcp_proxy(c: &mut Criterion) {
    tcp_proxy_timed(c, false);
    tcp_proxy_timed(c, true);
}

fn tcp_proxy_timed(c: &mut Criterion, cpu: bool) {
    let mut group =
        c.benchmark_group(if cpu { "splice-pool/tcp-proxy-cpu" } else { "splice-pool/tcp-proxy" });
    group.sample_size(10);
    let mut proxy = Proxy::new();
    let mut buf = vec![0u8; 64 * KIB];
    // The same copy through a pool of 1 MiB pipes (`F_SETPIPE_SZ`): 16 times fewer splice
    // calls per byte than the default 64 KiB pipes.
    let big_pipes =
        splice_pool::PipePool::new(splice_pool::Config::default().with_pipe_size(Some(MIB)));
    for size in benches::sizes(&PROXY_SIZES) {
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("splice-pool", size), |b| {
            b.iter_custom(|iters| {
                timed(iters, cpu, || {
                    proxy.run(size, &mut |a, b, n| {
                        let copied = splice_pool::copy(a, b, Some(n as u64)).unwrap();
                        assert_eq!(copied, n as u64);
                    })
                })
            })
        });
        group.bench_function(BenchmarkId::new("splice-pool-1m-pipes", size), |b| {
            b.iter_custom(|iters| {
                timed(iters, cpu, || {
                    proxy.run(size, &mut |a, b, n| {
                        let copied = big_pipes.copy(a, b, Some(n as u64)).unwrap().bytes;
                        assert_eq!(copied, n as u64);
                    })
                })
            })
        });
        group.bench_function(BenchmarkId::new("read-write-64k", size), |b| {
            b.iter_custom(|iters| {
                timed(iters, cpu, || {
                    proxy.run(size, &mut |a, b, n| read_write_loop(a, b, n, &mut buf))
                })
            })
        });
        group.bench_function(BenchmarkId::new("std-io-copy", size), |b| {
            b.iter_custom(|iters| {
                timed(iters, cpu, || {
                    proxy.run(size, &mut |a, b, n| {
                        let copied = std::io::copy(&mut Read::by_ref(a).take(n as u64), b).unwrap();
                        assert_eq!(copied, n as u64);
                    })
                })
            })
        });
    }
    group.finish();
}

fn file_to_socket(c: &mut Criterion) {
    file_to_socket_timed(c, false);
    file_to_socket_timed(c, true);
}

fn file_to_socket_timed(c: &mut Criterion, cpu: bool) {
    let name = if cpu { "splice-pool/file-to-socket-cpu" } else { "splice-pool/file-to-socket" };
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    let (mut sock, mut peer) = tcp_pair();
    let (to_reader, reader_rx) = channel::<usize>();
    let (done_tx, done) = channel::<()>();
    thread::spawn(move || {
        let mut buf = vec![0u8; 256 * KIB];
        for mut n in reader_rx {
            while n > 0 {
                let k = peer.read(&mut buf[..n.min(256 * KIB)]).unwrap();
                assert!(k > 0);
                n -= k;
            }
            done_tx.send(()).unwrap();
        }
    });
    let mut buf = vec![0u8; 64 * KIB];
    for size in benches::sizes(&FILE_SIZES) {
        let mut file = temp_file(size);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("splice-pool", size), |b| {
            b.iter_custom(|iters| {
                timed(iters, cpu, || {
                    file.rewind().unwrap();
                    to_reader.send(size).unwrap();
                    let n = splice_pool::copy(&mut file, &mut sock, None).unwrap();
                    assert_eq!(n, size as u64);
                    done.recv().unwrap();
                })
            })
        });
        group.bench_function(BenchmarkId::new("read-write-64k", size), |b| {
            b.iter_custom(|iters| {
                timed(iters, cpu, || {
                    file.rewind().unwrap();
                    to_reader.send(size).unwrap();
                    read_write_loop(&mut file, &mut sock, size, &mut buf);
                    done.recv().unwrap();
                })
            })
        });
    }
    group.finish();
}

fn temp_file(len: usize) -> File {
    let path = std::env::temp_dir().join(format!("splice-pool-bench-{}-{len}", std::process::id()));
    let mut f =
        File::options().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    f.write_all(&benches::input(len)).unwrap();
    f.sync_all().unwrap();
    f
}

fn async_proxy(c: &mut Criterion) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    let mut group = c.benchmark_group("splice-pool/async-proxy");
    group.sample_size(10);
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_io().build().unwrap();
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let pair = || async {
        let a = TcpStream::connect(addr).await.unwrap();
        let (b, _) = listener.accept().await.unwrap();
        (a, b)
    };
    /// One end: writes n bytes, shuts down, reads to EOF; returns the bytes read.
    async fn end(s: TcpStream, n: usize) -> usize {
        let (mut r, mut w) = s.into_split();
        let writer = tokio::spawn(async move {
            let buf = vec![7u8; 256 * 1024];
            let mut left = n;
            while left > 0 {
                let k = left.min(buf.len());
                w.write_all(&buf[..k]).await.unwrap();
                left -= k;
            }
            w.shutdown().await.unwrap();
        });
        let mut buf = vec![0u8; 256 * 1024];
        let mut got = 0;
        loop {
            let k = r.read(&mut buf).await.unwrap();
            if k == 0 {
                break;
            }
            got += k;
        }
        writer.await.unwrap();
        got
    }
    for size in benches::sizes(&ASYNC_SIZES) {
        group.throughput(Throughput::Bytes(2 * size as u64));
        for name in ["splice-pool", "tokio-copy-bidirectional"] {
            group.bench_function(BenchmarkId::new(name, size), |b| {
                b.iter(|| {
                    rt.block_on(async {
                        let (client, mut pa) = pair().await;
                        let (mut pb, server) = pair().await;
                        let c = tokio::spawn(end(client, size));
                        let s = tokio::spawn(end(server, size));
                        let (ab, ba) = if name == "splice-pool" {
                            splice_pool::tokio::copy_bidirectional(&mut pa, &mut pb).await.unwrap()
                        } else {
                            tokio::io::copy_bidirectional(&mut pa, &mut pb).await.unwrap()
                        };
                        assert_eq!((ab, ba), (size as u64, size as u64));
                        assert_eq!(c.await.unwrap(), size);
                        assert_eq!(s.await.unwrap(), size);
                    })
                })
            });
        }
    }
    group.finish();
}

/// The tokio proxy on a current-thread runtime on the bench thread, timed by that thread's CPU
/// time; the two ends are blocking sockets on threads of their own.
fn async_proxy_cpu(c: &mut Criterion) {
    let mut group = c.benchmark_group("splice-pool/async-proxy-cpu");
    group.sample_size(10);
    let rt = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    /// One end on its own thread: writes n bytes, shuts down its write side, reads to EOF.
    fn end(s: TcpStream, n: usize) -> thread::JoinHandle<usize> {
        thread::spawn(move || {
            let mut w = s.try_clone().unwrap();
            let writer = thread::spawn(move || {
                let buf = vec![7u8; 256 * KIB];
                let mut left = n;
                while left > 0 {
                    let k = left.min(buf.len());
                    w.write_all(&buf[..k]).unwrap();
                    left -= k;
                }
                w.shutdown(std::net::Shutdown::Write).unwrap();
            });
            let mut r = s;
            let mut buf = vec![0u8; 256 * KIB];
            let mut got = 0;
            loop {
                let k = r.read(&mut buf).unwrap();
                if k == 0 {
                    break;
                }
                got += k;
            }
            writer.join().unwrap();
            got
        })
    }
    for size in benches::sizes(&ASYNC_SIZES) {
        group.throughput(Throughput::Bytes(2 * size as u64));
        for name in ["splice-pool", "tokio-copy-bidirectional"] {
            group.bench_function(BenchmarkId::new(name, size), |b| {
                b.iter_custom(|iters| {
                    let mut spent = Duration::ZERO;
                    for _ in 0..iters {
                        let client = TcpStream::connect(addr).unwrap();
                        let (mut pa, _) = rt.block_on(listener.accept()).unwrap();
                        let server_side = TcpStream::connect(addr).unwrap();
                        let (mut pb, _) = rt.block_on(listener.accept()).unwrap();
                        let (c, s) = (end(client, size), end(server_side, size));
                        let cpu0 = benches::thread_cpu();
                        let (ab, ba) = rt.block_on(async {
                            if name == "splice-pool" {
                                splice_pool::tokio::copy_bidirectional(&mut pa, &mut pb).await
                            } else {
                                tokio::io::copy_bidirectional(&mut pa, &mut pb).await
                            }
                            .unwrap()
                        });
                        spent += benches::thread_cpu() - cpu0;
                        assert_eq!((ab, ba), (size as u64, size as u64));
                        assert_eq!(c.join().unwrap(), size);
                        assert_eq!(s.join().unwrap(), size);
                    }
                    spent
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, get_put, tcp_proxy, file_to_socket, async_proxy, async_proxy_cpu);
criterion_main!(benches);
