//! The wire id of a batch job: one attempt at one day, as 16 bytes.

/// The wire id of one attempt at one day.
pub fn job_id(day: usize, attempt: u32) -> Vec<u8> {
    let mut id = (day as u64).to_be_bytes().to_vec();
    id.extend_from_slice(&u64::from(attempt).to_be_bytes());
    id
}

/// The day and attempt of a wire id.
pub fn read_id(id: &[u8]) -> Option<(usize, u32)> {
    let (day, attempt) = (id.get(..8)?, id.get(8..16)?);
    let day = usize::try_from(u64::from_be_bytes(day.try_into().ok()?)).ok()?;
    let attempt = u32::try_from(u64::from_be_bytes(attempt.try_into().ok()?)).ok()?;
    (id.len() == 16).then_some((day, attempt))
}
