//! A small tokio TCP service that seals and opens messages with the kernel's `gcm(aes)`.
//!
//! ```text
//! cargo run -p kcapi --example service -- 127.0.0.1:7878 000102030405060708090a0b0c0d0e0f
//! ```
//!
//! The AF_ALG calls block (the kernel runs the cipher inside `sendmsg`/`read`), so they stay
//! off the reactor: a pool of worker threads, each with its own operation socket on the one
//! keyed transform (`Aead::try_clone`: `accept` again, the key is set once), takes jobs from a
//! queue and answers through a oneshot channel. The reactor only moves bytes.
//!
//! Protocol, per request on a connection (all integers big-endian):
//!
//! - request: `op: u8` (0 seal, 1 open), `nonce: [u8; 12]`, `aad_len: u32`, `len: u32`,
//!   `aad`, `payload` (plaintext to seal, or `ciphertext || tag` to open);
//! - reply: `status: u8` (0 ok, 1 authentication failed, 2 bad request, 3 server error),
//!   `len: u32`, `payload` (`ciphertext || tag`, or the plaintext; empty on an error).

use std::sync::{Arc, Mutex, mpsc};

use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// The largest `aad + payload` a request may carry: below the kernel's per-operation limit
/// (`Aead::max_message_len`, about the socket send buffer), and small enough that a client
/// cannot make the server allocate much.
pub const MAX_REQUEST: usize = 64 * 1024;

/// Reply status: done, the payload follows.
pub const OK: u8 = 0;
/// Reply status: `open` found a wrong tag.
pub const AUTH_FAILED: u8 = 1;
/// Reply status: an unknown operation (the connection closes), a request too large, a
/// payload too short to hold a tag.
pub const BAD_REQUEST: u8 = 2;
/// Reply status: the kernel failed the operation (logged).
pub const SERVER_ERROR: u8 = 3;

/// What a worker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Encrypt and authenticate: the reply is `ciphertext || tag`.
    Seal,
    /// Check and decrypt `ciphertext || tag`: the reply is the plaintext.
    Open,
}

/// One request for a worker, with the channel its reply goes back on.
struct Job {
    op: Op,
    nonce: [u8; 12],
    aad: Vec<u8>,
    payload: Vec<u8>,
    reply: oneshot::Sender<(u8, Vec<u8>)>,
}

/// The crypto workers: `n` threads, each with its own operation socket.
#[derive(Clone)]
pub struct Pool {
    jobs: mpsc::SyncSender<Job>,
}

impl Pool {
    /// Binds `gcm(aes)` with `key` once and starts `workers` threads on clones of it.
    pub fn new(key: &[u8], workers: usize) -> Result<Pool, kcapi::Error> {
        let proto = kcapi::Aead::new("gcm(aes)", key, 16)?;
        // A bounded queue: when every worker is busy, connections wait (backpressure).
        let (tx, rx) = mpsc::sync_channel::<Job>(workers * 4);
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..workers.max(1) {
            let mut aead = proto.try_clone()?;
            let rx = Arc::clone(&rx);
            std::thread::Builder::new()
                .name(format!("gcm-worker-{i}"))
                .spawn(move || {
                    loop {
                        // The lock is held only while waiting for the next job.
                        let job = match rx.lock().unwrap_or_else(|p| p.into_inner()).recv() {
                            Ok(job) => job,
                            Err(_) => return, // Every sender is gone: shut down.
                        };
                        let result = match job.op {
                            Op::Seal => aead.seal(&job.nonce, &job.aad, &job.payload),
                            Op::Open => aead.open(&job.nonce, &job.aad, &job.payload),
                        };
                        let reply = match result {
                            Ok(out) => (OK, out),
                            Err(kcapi::Error::AuthenticationFailed) => (AUTH_FAILED, Vec::new()),
                            Err(kcapi::Error::InvalidLength | kcapi::Error::InvalidIv) => {
                                (BAD_REQUEST, Vec::new())
                            }
                            Err(e) => {
                                eprintln!("service: gcm(aes): {e}");
                                (SERVER_ERROR, Vec::new())
                            }
                        };
                        // The connection may have gone away meanwhile: nothing to do then.
                        let _ = job.reply.send(reply);
                    }
                })
                .map_err(kcapi::Error::Io)?;
        }
        Ok(Pool { jobs: tx })
    }

    /// Runs one operation on a worker thread, without blocking the reactor.
    pub async fn run(
        &self,
        op: Op,
        nonce: [u8; 12],
        aad: Vec<u8>,
        payload: Vec<u8>,
    ) -> (u8, Vec<u8>) {
        let (reply, answer) = oneshot::channel();
        let job = Job { op, nonce, aad, payload, reply };
        let queued = match self.jobs.try_send(job) {
            Ok(()) => true,
            // Every worker busy and the queue full: wait for room off the reactor.
            Err(mpsc::TrySendError::Full(job)) => {
                let jobs = self.jobs.clone();
                matches!(
                    tokio::task::spawn_blocking(move || jobs.send(job).is_ok()).await,
                    Ok(true)
                )
            }
            Err(mpsc::TrySendError::Disconnected(_)) => false,
        };
        if !queued {
            return (SERVER_ERROR, Vec::new());
        }
        answer.await.unwrap_or((SERVER_ERROR, Vec::new()))
    }
}

/// Serves one connection until the client closes it or sends a malformed request.
pub async fn serve_connection(stream: TcpStream, pool: Pool) -> std::io::Result<()> {
    let (r, w) = stream.into_split();
    let (mut r, mut w) = (BufReader::new(r), BufWriter::new(w));
    loop {
        let op = match r.read_u8().await {
            Ok(0) => Op::Seal,
            Ok(1) => Op::Open,
            Ok(_) => return reply(&mut w, BAD_REQUEST, &[]).await,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut nonce = [0u8; 12];
        r.read_exact(&mut nonce).await?;
        let aad_len = r.read_u32().await? as usize;
        let len = r.read_u32().await? as usize;
        if aad_len.saturating_add(len) > MAX_REQUEST {
            return reply(&mut w, BAD_REQUEST, &[]).await;
        }
        let mut aad = vec![0u8; aad_len];
        r.read_exact(&mut aad).await?;
        let mut payload = vec![0u8; len];
        r.read_exact(&mut payload).await?;
        let (status, out) = pool.run(op, nonce, aad, payload).await;
        reply(&mut w, status, &out).await?;
    }
}

async fn reply<W: AsyncWriteExt + Unpin>(
    w: &mut W,
    status: u8,
    payload: &[u8],
) -> std::io::Result<()> {
    w.write_u8(status).await?;
    w.write_u32(payload.len() as u32).await?;
    w.write_all(payload).await?;
    w.flush().await
}

/// Accepts connections forever, one task each.
pub async fn serve(listener: TcpListener, pool: Pool) -> std::io::Result<()> {
    loop {
        let (stream, peer) = listener.accept().await?;
        let pool = pool.clone();
        tokio::spawn(async move {
            if let Err(e) = serve_connection(stream, pool).await {
                eprintln!("service: {peer}: {e}");
            }
        });
    }
}

/// Parses a hex key of 16, 24 or 32 bytes.
pub fn parse_key(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) || !matches!(hex.len() / 2, 16 | 24 | 32) {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect()
}

#[allow(dead_code)] // The VM test includes this file as a module and has its own main.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:7878".into());
    let key = match args.next() {
        Some(hex) => parse_key(&hex).ok_or("the key must be 32, 48 or 64 hex digits")?,
        None => {
            let mut k = vec![0u8; 16];
            kcapi::Rng::new("stdrng")?.fill(&mut k)?;
            let hex: String = k.iter().map(|b| format!("{b:02x}")).collect();
            eprintln!("service: no key given, using {hex}");
            k
        }
    };
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = Pool::new(&key, workers)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_io().build()?;
    rt.block_on(async {
        let listener = TcpListener::bind(&addr).await?;
        eprintln!("service: gcm(aes) on {addr}, {workers} workers");
        serve(listener, pool).await
    })?;
    Ok(())
}
