//! The portable encoding of a chain's core in a checkpoint (`sgs_…_export` / `…_import`,
//! docs/design.md "Checkpoints"): every field as little-endian fixed-width words, in declaration
//! order, so that a checkpoint does not depend on pointer width, struct layout or byte order.
//!
//! Each type of a core implements [`Wire`] next to its definition (the fields are private
//! there), through [`wire_struct!`] for plain structs: its `get` builds the struct with a literal
//! naming every field, so a field added to a core and forgotten here does not compile. Reading
//! validates what can be invalid — enum discriminants, booleans, sizes that must fit a `usize`,
//! indices with a bound — and never trusts a length to allocate or index before it is checked.

use crate::error::Error;

/// Appends the encoding of values to a byte buffer. Writes past the end of the buffer are
/// counted but dropped, so the same code gives the length (over an empty buffer) and the bytes.
pub(crate) struct Writer<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl<'a> Writer<'a> {
    /// A writer filling `out` from its start.
    pub(crate) fn new(out: &'a mut [u8]) -> Self {
        Writer { out, at: 0 }
    }

    /// Bytes written (or that would have been, past the buffer).
    pub(crate) fn len(&self) -> usize {
        self.at
    }

    /// Appends raw bytes.
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        // Element by element rather than `copy_from_slice`, whose length assertion the C
        // library must not link (no panic path: scripts/no-panic-linked.sh).
        if let Some(dst) = self
            .at
            .checked_add(b.len())
            .and_then(|end| self.out.get_mut(self.at..end))
        {
            for (d, v) in dst.iter_mut().zip(b) {
                *d = *v;
            }
        }
        self.at = self.at.saturating_add(b.len());
    }

    /// Appends a little-endian `u64`.
    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends a little-endian `u32`.
    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
}

/// Reads values back from a checkpoint; running out of bytes is [`Error::InvalidCheckpoint`].
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader from the start of `buf`.
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, at: 0 }
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.at.min(self.buf.len())
    }

    /// The next `N` bytes.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let end = self.at.checked_add(N).ok_or(Error::InvalidCheckpoint)?;
        let s = self.buf.get(self.at..end).ok_or(Error::InvalidCheckpoint)?;
        let a = <[u8; N]>::try_from(s).map_err(|_| Error::InvalidCheckpoint)?;
        self.at = end;
        Ok(a)
    }

    /// The next little-endian `u64`.
    pub(crate) fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// The next little-endian `u32`.
    pub(crate) fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array()?))
    }
}

/// A value with a portable encoding. `get` reads what `put` wrote, or fails with
/// [`Error::InvalidCheckpoint`] for bytes no `put` could have written (an unknown enum value, a
/// boolean other than 0 or 1, a size beyond `usize` or beyond its bound).
pub(crate) trait Wire: Sized {
    /// Appends the encoding.
    fn put(&self, w: &mut Writer<'_>);
    /// Reads one value.
    fn get(r: &mut Reader<'_>) -> Result<Self, Error>;
}

impl Wire for u64 {
    fn put(&self, w: &mut Writer<'_>) {
        w.u64(*self);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        r.u64()
    }
}

impl Wire for u32 {
    fn put(&self, w: &mut Writer<'_>) {
        w.u32(*self);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        r.u32()
    }
}

impl Wire for i8 {
    fn put(&self, w: &mut Writer<'_>) {
        w.bytes(&self.to_le_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(i8::from_le_bytes(r.array()?))
    }
}

/// Sizes travel as 64 bits whatever the pointer width; one that does not fit this target's
/// `usize` cannot be a valid state here.
impl Wire for usize {
    fn put(&self, w: &mut Writer<'_>) {
        w.u64(*self as u64);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        usize::try_from(r.u64()?).map_err(|_| Error::InvalidCheckpoint)
    }
}

impl Wire for bool {
    fn put(&self, w: &mut Writer<'_>) {
        w.bytes(&[*self as u8]);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        match r.array::<1>()? {
            [0] => Ok(false),
            [1] => Ok(true),
            _ => Err(Error::InvalidCheckpoint),
        }
    }
}

/// The bits, NaN payloads included (a state holds what it computed).
impl Wire for f64 {
    fn put(&self, w: &mut Writer<'_>) {
        w.u64(self.to_bits());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(f64::from_bits(r.u64()?))
    }
}

/// The bits, NaN payloads included.
impl Wire for f32 {
    fn put(&self, w: &mut Writer<'_>) {
        w.u32(self.to_bits());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(f32::from_bits(r.u32()?))
    }
}

impl<T: Wire + Copy + Default, const N: usize> Wire for [T; N] {
    fn put(&self, w: &mut Writer<'_>) {
        for v in self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        let mut a = [T::default(); N];
        for v in a.iter_mut() {
            *v = T::get(r)?;
        }
        Ok(a)
    }
}

/// A presence flag (as a `bool`), then the value if present.
impl<T: Wire> Wire for Option<T> {
    fn put(&self, w: &mut Writer<'_>) {
        self.is_some().put(w);
        if let Some(v) = self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(if bool::get(r)? {
            Some(T::get(r)?)
        } else {
            None
        })
    }
}

/// [`Wire`] for a struct, field by field in the order given, which must name every field (the
/// `get` is a struct literal): `wire_struct!(Type { a, b, c });`.
macro_rules! wire_struct {
    ($T:ident { $($f:ident),* $(,)? }) => {
        impl $crate::wire::Wire for $T {
            fn put(&self, w: &mut $crate::wire::Writer<'_>) {
                $($crate::wire::Wire::put(&self.$f, w);)*
            }
            fn get(r: &mut $crate::wire::Reader<'_>) -> Result<Self, $crate::error::Error> {
                Ok($T { $($f: $crate::wire::Wire::get(r)?,)* })
            }
        }
    };
}
pub(crate) use wire_struct;

/// [`Wire`] for a fieldless `#[repr(u32)]` enum, as its discriminant; any other value is
/// refused: `wire_enum!(Type { A, B });` must list every variant.
macro_rules! wire_enum {
    ($T:ident { $($v:ident),* $(,)? }) => {
        impl $crate::wire::Wire for $T {
            fn put(&self, w: &mut $crate::wire::Writer<'_>) {
                w.u32(*self as u32);
            }
            fn get(r: &mut $crate::wire::Reader<'_>) -> Result<Self, $crate::error::Error> {
                let v = r.u32()?;
                $(if v == $T::$v as u32 {
                    return Ok($T::$v);
                })*
                Err($crate::error::Error::InvalidCheckpoint)
            }
        }
        // Every variant listed: a new one breaks this match until it is added above.
        const _: fn($T) = |v| match v {
            $($T::$v => {})*
        };
    };
}
pub(crate) use wire_enum;

/// FNV-1a over bytes (64-bit): the checkpoint's checksum. Detects accidents (a truncated or
/// corrupted file), not adversaries.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Wire + PartialEq + core::fmt::Debug>(v: T, len: usize) {
        let mut buf = [0u8; 64];
        let mut w = Writer::new(&mut buf);
        v.put(&mut w);
        assert_eq!(w.len(), len);
        let mut r = Reader::new(&buf[..len]);
        assert_eq!(T::get(&mut r), Ok(v));
        assert_eq!(r.remaining(), 0);
        // One byte short is refused, never read past.
        assert_eq!(
            T::get(&mut Reader::new(&buf[..len - 1])),
            Err(Error::InvalidCheckpoint)
        );
    }

    #[test]
    fn values_round_trip_in_fixed_widths() {
        round_trip(0x0102_0304_0506_0708u64, 8);
        round_trip(7u32, 4);
        round_trip(-1i8, 1);
        round_trip(usize::MAX, 8);
        round_trip(true, 1);
        round_trip(-0.0f64, 8);
        round_trip(1.5f32, 4);
        round_trip([1u64, 2, 3], 24);
        round_trip(Some(3u32), 5);
    }

    #[test]
    fn little_endian_and_invalid_values_refused() {
        let mut buf = [0u8; 8];
        1u64.put(&mut Writer::new(&mut buf));
        assert_eq!(buf, [1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            bool::get(&mut Reader::new(&[2])),
            Err(Error::InvalidCheckpoint)
        );
        assert_eq!(
            Option::<u32>::get(&mut Reader::new(&[5, 0, 0, 0, 0])),
            Err(Error::InvalidCheckpoint)
        );
    }

    #[test]
    fn writer_counts_past_its_buffer() {
        let mut w = Writer::new(&mut []);
        w.u64(1);
        w.u32(2);
        assert_eq!(w.len(), 12);
    }

    #[test]
    fn checksum_is_fnv1a() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(checksum(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(checksum(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
