//! [`Nat`] as bytes, both byte orders, with num-bigint's `BigUint` names and results
//! (zero is the single byte `[0]`; leading zero bytes of the input are ignored).

use crate::nat::Nat;

impl Nat {
    /// The number from its bytes, least significant first (an empty slice is zero).
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from_bytes_le(&[0x01, 0x02, 0x00]), Nat::from(0x0201u32));
    /// ```
    pub fn from_bytes_le(bytes: &[u8]) -> Nat {
        let limbs = bytes
            .chunks(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect();
        Nat::from_limbs(limbs)
    }

    /// The number from its bytes, most significant first (an empty slice is zero).
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from_bytes_be(&[0x00, 0x02, 0x01]), Nat::from(0x0201u32));
    /// ```
    pub fn from_bytes_be(bytes: &[u8]) -> Nat {
        let limbs = bytes
            .rchunks(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b[8 - c.len()..].copy_from_slice(c);
                u64::from_be_bytes(b)
            })
            .collect();
        Nat::from_limbs(limbs)
    }

    /// The bytes, least significant first, without trailing zeros (`[0]` for zero).
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from(0x0201u32).to_bytes_le(), [0x01, 0x02]);
    /// assert_eq!(Nat::zero().to_bytes_le(), [0]);
    /// ```
    pub fn to_bytes_le(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self.limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
        let n = v.iter().rposition(|&b| b != 0).map_or(1, |i| i + 1);
        v.truncate(n);
        v.resize(n, 0);
        v
    }

    /// The bytes, most significant first, without leading zeros (`[0]` for zero).
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from(0x0201u32).to_bytes_be(), [0x02, 0x01]);
    /// assert_eq!(Nat::zero().to_bytes_be(), [0]);
    /// ```
    pub fn to_bytes_be(&self) -> Vec<u8> {
        let mut v = self.to_bytes_le();
        v.reverse();
        v
    }
}
