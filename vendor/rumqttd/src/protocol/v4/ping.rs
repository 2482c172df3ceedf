use super::*;
use bytes::{BufMut, BytesMut};

pub mod pingreq {
    use super::*;

    pub fn write(payload: &mut BytesMut) -> Result<usize, Error> {
        payload.put_slice(&[0xC0, 0x00]);
        Ok(2)
    }
}

pub mod pingresp {
    use super::*;

    pub fn write(buffer: &mut BytesMut) -> Result<usize, Error> {
        buffer.put_slice(&[0xD0, 0x00]);
        Ok(2)
    }
}
