//! The async copies (feature `tokio`): a TCP proxy both ways, Unix sockets, `AsyncFd`, a
//! peer reset, and a cancelled copy, with the open-fd count checked around each.

mod common;

use std::io;
use std::os::fd::AsFd;

use common::{Pattern, Sum, emulated, fd_guard};
use splice_pool::{Config, CopyError, PipePool};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UnixStream};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let a = TcpStream::connect(l.local_addr().unwrap()).await.unwrap();
    let (b, _) = l.accept().await.unwrap();
    (a, b)
}

async fn send(mut w: impl AsyncWriteExt + Unpin, len: u64, seed: u64) -> io::Result<Sum> {
    let mut p = Pattern::new(seed);
    let mut sum = Sum::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut left = len;
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        p.fill(&mut buf[..n]);
        w.write_all(&buf[..n]).await?;
        sum.update(&buf[..n]);
        left -= n as u64;
    }
    w.shutdown().await?;
    Ok(sum)
}

async fn recv(mut r: impl AsyncReadExt + Unpin) -> io::Result<Sum> {
    let mut sum = Sum::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = r.read(&mut buf).await?;
        if n == 0 {
            return Ok(sum);
        }
        sum.update(&buf[..n]);
    }
}

#[test]
fn async_bidirectional_tcp_proxy() {
    let _g = fd_guard();
    let big: u64 = if emulated() { 2 << 20 } else { 16 << 20 };
    let rt = rt();
    for (up, down) in [(0u64, 0u64), (1, 70_000), (big, big / 2)] {
        rt.block_on(async {
            let (client, mut pa) = tcp_pair().await;
            let (mut pb, server) = tcp_pair().await;
            let (cr, cw) = client.into_split();
            let (sr, sw) = server.into_split();
            let c_send = tokio::spawn(send(cw, up, 1));
            let s_send = tokio::spawn(send(sw, down, 2));
            let c_recv = tokio::spawn(recv(cr));
            let s_recv = tokio::spawn(recv(sr));
            let (ab, ba) = splice_pool::tokio::copy_bidirectional(&mut pa, &mut pb).await.unwrap();
            assert_eq!((ab, ba), (up, down));
            assert_eq!(c_send.await.unwrap().unwrap(), s_recv.await.unwrap().unwrap());
            assert_eq!(s_send.await.unwrap().unwrap(), c_recv.await.unwrap().unwrap());
        });
    }
    drop(rt); // worker threads exit: their pool caches close
}

#[test]
fn async_copy_unix_and_asyncfd() {
    let _g = fd_guard();
    let rt = rt();
    rt.block_on(async {
        let (client, mut pin) = UnixStream::pair().unwrap();
        let (mut pout, server) = UnixStream::pair().unwrap();
        let sender = tokio::spawn(send(client, 1 << 20, 3));
        let receiver = tokio::spawn(recv(server));
        let n = splice_pool::tokio::copy(&mut pin, &mut pout, None).await.unwrap();
        drop(pout);
        assert_eq!(n, 1 << 20);
        assert_eq!(sender.await.unwrap().unwrap(), receiver.await.unwrap().unwrap());

        // Through AsyncFd on std sockets.
        let (mut c, s) = std::os::unix::net::UnixStream::pair().unwrap();
        let (o, r) = std::os::unix::net::UnixStream::pair().unwrap();
        for s in [&s, &o] {
            s.set_nonblocking(true).unwrap();
        }
        std::io::Write::write_all(&mut c, &[9u8; 5000]).unwrap();
        drop(c);
        // SAFETY: each AsyncFd owns its UnixStream, whose fd stays open and the same until
        // the AsyncFd is dropped.
        let mut s = unsafe { tokio::io::unix::AsyncFd::register(s) }.unwrap();
        // SAFETY: as above.
        let mut o = unsafe { tokio::io::unix::AsyncFd::register(o) }.unwrap();
        let n = splice_pool::tokio::copy(&mut s, &mut o, Some(4000)).await.unwrap();
        assert_eq!(n, 4000);
        drop(o);
        r.set_nonblocking(false).unwrap();
        let got = common::read_sum(&r).unwrap();
        assert_eq!(got.1, 4000);
        let _ = s.as_fd();
    });
    drop(rt);
}

#[test]
fn async_peer_reset_is_an_error_and_the_dirty_pipe_is_closed() {
    let _g = fd_guard();
    let rt = rt();
    let pool = PipePool::new(Config::default());
    rt.block_on(async {
        let (client, mut pa) = tcp_pair().await;
        let (mut pb, server) = tcp_pair().await;
        let writer = tokio::spawn(async move {
            let mut client = client;
            let chunk = vec![0u8; 64 * 1024];
            while client.write_all(&chunk).await.is_ok() {}
        });
        let resetter = tokio::spawn(async move {
            let mut server = server;
            let mut buf = vec![0u8; 64 * 1024];
            let mut got = 0;
            while got < 200_000 {
                got += server.read(&mut buf).await.unwrap();
            }
            common::reset_on_close(&server);
            drop(server);
        });
        let err = splice_pool::tokio::copy_with(&pool, &mut pa, &mut pb, None).await.unwrap_err();
        let info = CopyError::of(&err).expect("a CopyError");
        assert!(info.lost_in_flight > 0, "{info}");
        resetter.await.unwrap();
        drop(pa);
        writer.await.unwrap();
    });
    let st = pool.stats();
    assert_eq!((st.discarded, st.idle), (1, 0), "{st:?}");
    drop(rt);
}

#[test]
fn a_cancelled_copy_leaks_nothing() {
    let _g = fd_guard();
    let rt = rt();
    let pool = PipePool::new(Config::default());
    rt.block_on(async {
        let (mut client, mut pa) = tcp_pair().await;
        let (mut pb, _server) = tcp_pair().await; // never read: the copy stalls
        let chunk = vec![1u8; 64 * 1024];
        let fill = tokio::spawn(async move {
            for _ in 0..200 {
                if client.write_all(&chunk).await.is_err() {
                    break;
                }
            }
            client
        });
        let r = tokio::time::timeout(
            std::time::Duration::from_millis(300),
            splice_pool::tokio::copy_with(&pool, &mut pa, &mut pb, None),
        )
        .await;
        assert!(r.is_err(), "the copy cannot finish");
        drop((pa, pb));
        drop(fill.await.unwrap());
    });
    let st = pool.stats();
    assert_eq!(st.created, st.idle as u64 + st.closed, "{st:?}");
    drop(rt);
}

/// Compiles only if the argument is `Send`: what `tokio::spawn` asks of a future.
fn assert_send<T: Send>(_: &T) {}

/// Every public future of the crate is `Send` (over each kind of descriptor it takes), and so
/// is the pipe they hold across `.await`.
#[test]
fn futures_are_send() {
    fn assert_sync<T: Sync>() {}
    assert_sync::<splice_pool::PooledPipe<'static>>();
    assert_sync::<PipePool>();
    let _g = fd_guard();
    let rt = rt();
    rt.block_on(async {
        use splice_pool::tokio::{copy, copy_bidirectional, copy_bidirectional_with, copy_with};
        let pool = PipePool::new(Config::default());
        let (mut t1, mut t2) = tcp_pair().await;
        let (mut u1, mut u2) = UnixStream::pair().unwrap();
        let (s1, s2) = std::os::unix::net::UnixStream::pair().unwrap();
        for s in [&s1, &s2] {
            s.set_nonblocking(true).unwrap();
        }
        // SAFETY: each AsyncFd owns its UnixStream, whose fd stays open and the same until
        // the AsyncFd is dropped.
        let mut f1 = unsafe { tokio::io::unix::AsyncFd::register(s1) }.unwrap();
        // SAFETY: as above.
        let mut f2 = unsafe { tokio::io::unix::AsyncFd::register(s2) }.unwrap();

        assert_send(&copy(&mut t1, &mut t2, None));
        assert_send(&copy(&mut u1, &mut t2, Some(1)));
        assert_send(&copy(&mut f1, &mut u2, None));
        assert_send(&copy_with(&pool, &mut t1, &mut f2, None));
        assert_send(&copy_bidirectional(&mut t1, &mut t2));
        assert_send(&copy_bidirectional(&mut u1, &mut f1));
        assert_send(&copy_bidirectional_with(&pool, &mut f2, &mut t1));
    });
    drop(rt);
}

/// The proxy of a service: `copy_bidirectional` spawned on a multi-threaded runtime moves
/// 64 MiB each way (2 MiB under emulation or Miri) and half-closes as
/// `tokio::io::copy_bidirectional` does: when the client ends its upload, the server sees end
/// of input while the download keeps flowing, and the client sees the download's end only
/// after the server ends it.
#[test]
fn spawned_bidirectional_proxy_half_closes() {
    let _g = fd_guard();
    let size: u64 = if emulated() || cfg!(miri) { 2 << 20 } else { 64 << 20 };
    let rt = rt();
    rt.block_on(async {
        let (client, mut pa) = tcp_pair().await;
        let (mut pb, server) = tcp_pair().await;
        let proxy =
            tokio::spawn(
                async move { splice_pool::tokio::copy_bidirectional(&mut pa, &mut pb).await },
            );
        let (cr, cw) = client.into_split();
        let (sr, mut sw) = server.into_split();
        // Client: uploads `size` bytes, then shuts its write half (read half still open).
        let c_send = tokio::spawn(send(cw, size, 5));
        let c_recv = tokio::spawn(recv(cr));
        // Server: sends the first half of its download while a task reads the upload to its
        // end, then, only after that end, the second half: the way down must stay open.
        let s_recv = tokio::spawn(recv(sr));
        let server = tokio::spawn(async move {
            let mut p = Pattern::new(6);
            let mut sent = Sum::new();
            let mut buf = vec![0u8; 64 * 1024];
            let mut write = async |len: u64, sent: &mut Sum| -> io::Result<()> {
                let mut left = len;
                while left > 0 {
                    let n = left.min(buf.len() as u64) as usize;
                    p.fill(&mut buf[..n]);
                    sw.write_all(&buf[..n]).await?;
                    sent.update(&buf[..n]);
                    left -= n as u64;
                }
                Ok(())
            };
            write(size / 2, &mut sent).await?;
            let got = s_recv.await.unwrap()?;
            write(size - size / 2, &mut sent).await?;
            sw.shutdown().await?;
            io::Result::Ok((got, sent))
        });
        let up_sum = c_send.await.unwrap().unwrap();
        // Without the half-close passed on, the server never sees the upload's end.
        let (server_got, server_sent) =
            tokio::time::timeout(std::time::Duration::from_secs(300), server)
                .await
                .expect("the server never saw the upload end: no half-close")
                .unwrap()
                .unwrap();
        assert_eq!(server_got, up_sum, "upload bytes");
        assert_eq!(c_recv.await.unwrap().unwrap(), server_sent, "download bytes");
        assert_eq!(proxy.await.unwrap().unwrap(), (size, size));
    });
    drop(rt);
}
