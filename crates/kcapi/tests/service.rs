//! examples/service.rs under load: concurrent clients over TCP on the loopback, every reply
//! checked against RustCrypto's `aes-gcm`, plus tampered and malformed requests.

mod common;

#[path = "../examples/service.rs"]
#[allow(dead_code)]
mod service;

use std::net::SocketAddr;

use aes_gcm::aead::{Aead as _, KeyInit, Payload};
use common::pattern;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const CLIENTS: u8 = 6;
const ROUNDS: usize = 12;

/// One request; returns the reply's status and payload.
async fn request(
    s: &mut TcpStream,
    op: u8,
    nonce: &[u8; 12],
    aad: &[u8],
    payload: &[u8],
) -> (u8, Vec<u8>) {
    let mut msg = vec![op];
    msg.extend_from_slice(nonce);
    msg.extend_from_slice(&(aad.len() as u32).to_be_bytes());
    msg.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    msg.extend_from_slice(aad);
    msg.extend_from_slice(payload);
    s.write_all(&msg).await.unwrap();
    let status = s.read_u8().await.unwrap();
    let len = s.read_u32().await.unwrap() as usize;
    let mut out = vec![0; len];
    s.read_exact(&mut out).await.unwrap();
    (status, out)
}

async fn client(addr: SocketAddr, key: Vec<u8>, id: u8) {
    let oracle = aes_gcm::Aes128Gcm::new_from_slice(&key).unwrap();
    let mut s = TcpStream::connect(addr).await.unwrap();
    let lens = [0usize, 1, 15, 16, 17, 1000, 4096, 60_000];
    for round in 0..ROUNDS {
        let len = lens[(round + usize::from(id)) % lens.len()];
        let pt = pattern(len, id.wrapping_mul(31) ^ round as u8);
        let aad = pattern(round % 4 * 9, id);
        let mut nonce = [0u8; 12];
        nonce[0] = id;
        nonce[1] = round as u8;
        let want = oracle
            .encrypt(aes_gcm::Nonce::from_slice(&nonce), Payload { msg: &pt, aad: &aad })
            .unwrap();
        let (status, sealed) = request(&mut s, 0, &nonce, &aad, &pt).await;
        assert_eq!(status, service::OK, "client {id} round {round}: seal");
        assert!(sealed == want, "client {id} round {round}: sealed {len} bytes differ");
        let (status, opened) = request(&mut s, 1, &nonce, &aad, &sealed).await;
        assert_eq!(status, service::OK, "client {id} round {round}: open");
        assert!(opened == pt, "client {id} round {round}: opened {len} bytes differ");
        let mut bad = sealed.clone();
        let at = round * 7 % bad.len();
        bad[at] ^= 1;
        let (status, out) = request(&mut s, 1, &nonce, &aad, &bad).await;
        assert_eq!((status, out.len()), (service::AUTH_FAILED, 0), "client {id}: tampered");
    }
    // Too short to hold a tag, then an unknown operation (the server closes the connection).
    let (status, _) = request(&mut s, 1, &[0; 12], b"", &[0; 15]).await;
    assert_eq!(status, service::BAD_REQUEST);
    s.write_all(&[9]).await.unwrap();
    assert_eq!(s.read_u8().await.unwrap(), service::BAD_REQUEST);
    assert_eq!(s.read_u32().await.unwrap(), 0);
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty());
}

#[test]
fn service_answers_concurrent_clients_like_aes_gcm() {
    require_kernel!();
    let key = pattern(16, 60);
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_io().build().unwrap();
    rt.block_on(async {
        let pool = service::Pool::new(&key, 3).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(service::serve(listener, pool));
        let clients: Vec<_> =
            (0..CLIENTS).map(|id| tokio::spawn(client(addr, key.clone(), id))).collect();
        for c in clients {
            c.await.unwrap();
        }
    });
}

#[test]
fn service_key_parsing() {
    // Runs everywhere.
    assert_eq!(service::parse_key("000102030405060708090a0b0c0d0e0f"), Some((0..16).collect()));
    assert_eq!(service::parse_key("00"), None);
    assert_eq!(service::parse_key(&"zz".repeat(16)), None);
    assert_eq!(service::parse_key(&"é".repeat(16)), None);
}
