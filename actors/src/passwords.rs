//! Password hashing: argon2id with the argon2 crate's default parameters (RFC 9106's second
//! recommended option, also OWASP's minimum: m = 19 MiB, t = 2, p = 1), stored as PHC strings.
//!
//! Memory. Every hash and every verification fills a 19 MiB block on purpose. Run on whichever
//! blocking thread was free, each thread's allocator arena kept the blocks it had used: after six
//! logins at once the process was 118 MiB larger, and stayed so. So here:
//! - the async forms ([`hash`], [`verify`]) queue for one thread of their own, so concurrent
//!   logins wait for each other instead of each holding a block (a login costs tens of
//!   milliseconds; failures and successes queue alike, so timing stays uniform);
//! - each call allocates its block above glibc's largest mmap threshold (32 MiB on 64-bit
//!   targets, [`MAPPED_BYTES`]), which the allocator always maps afresh and unmaps on free: the
//!   block's pages go back to the system when the call returns.

use crate::values::Password;
use crate::{Error, Result};
use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Argon2, Block, Params};
use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};

/// Bytes reserved (not touched) for each call's block: above glibc's `DEFAULT_MMAP_THRESHOLD_MAX`
/// (4 × 1 MiB × `sizeof(long)` = 32 MiB on 64-bit), so the block is always its own mapping.
pub const MAPPED_BYTES: usize = 33 * 1024 * 1024;

/// Salt length in bytes (the PHC recommendation).
const SALT_LEN: usize = 16;

/// Runs `work` with a zeroed block of `count` argon2 blocks that is unmapped afterwards.
fn with_block<T>(count: usize, work: impl FnOnce(&mut [Block]) -> T) -> T {
    let mut blocks: Vec<Block> = Vec::with_capacity(count.max(MAPPED_BYTES / Block::SIZE));
    blocks.resize(count, Block::default());
    work(&mut blocks)
}

/// The raw argon2id output of `password` with `salt` under `argon2`'s parameters, into `out`.
fn raw(argon2: &Argon2<'_>, params: &Params, password: &[u8], salt: &[u8], out: &mut [u8]) -> bool {
    with_block(params.block_count(), |blocks| {
        argon2
            .hash_password_into_with_memory(password, salt, out, blocks)
            .is_ok()
    })
}

/// Hashes `password` with argon2id and a fresh random salt; returns the PHC string. Blocking
/// (tens of milliseconds): off the async executor, use [`hash`].
///
/// Errors: the system's random source failed, reported as a field error on `password`
/// (`errors.hashFailed`; it does not happen on Linux).
pub fn hash_password(password: &Password) -> Result<String> {
    let failed = || Error::field("password", "errors.hashFailed");
    let mut salt = [0u8; SALT_LEN];
    getrandom::fill(&mut salt).map_err(|_| failed())?;
    let params = Params::default();
    let argon2 = Argon2::default();
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    if !raw(&argon2, &params, password.get().as_bytes(), &salt, &mut out) {
        return Err(failed());
    }
    let phc = PasswordHash {
        algorithm: argon2::Algorithm::Argon2id.ident(),
        version: Some(argon2::Version::default().into()),
        params: ParamsString::try_from(&params).map_err(|_| failed())?,
        salt: Some(Salt::new(&salt).map_err(|_| failed())?),
        hash: Some(Output::new(&out).map_err(|_| failed())?),
    };
    Ok(phc.to_string())
}

/// True when `candidate` matches the PHC string `hash` (compared in constant time). A malformed
/// hash never matches. Blocking: off the async executor, use [`verify`].
pub fn verify_password(hash: &str, candidate: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = argon2::Algorithm::try_from(parsed.algorithm.as_str()) else {
        return false;
    };
    let version = parsed
        .version
        .map_or(Ok(argon2::Version::default()), argon2::Version::try_from);
    let Ok(version) = version else {
        return false;
    };
    let Ok(params) = Params::try_from(&parsed) else {
        return false;
    };
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let mut out = vec![0u8; expected.len()];
    raw(
        &argon2,
        &params,
        candidate.as_bytes(),
        salt.as_ref(),
        &mut out,
    ) && Output::new(&out).is_ok_and(|found| found == expected)
}

/// A hash to verify against when the email is unknown, so that both failures cost the same time
/// (no account enumeration by timing).
pub fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| {
        "decoy password, never valid"
            .parse::<Password>()
            .ok()
            .and_then(|p| hash_password(&p).ok())
            .unwrap_or_default()
    })
}

/// [`hash_password`] on the hashing thread.
///
/// Errors: as [`hash_password`]; [`Error::Panicked`] if the hashing thread is gone.
pub async fn hash(password: Password) -> Result<String> {
    on_hashing_thread(move || hash_password(&password)).await?
}

/// [`verify_password`] on the hashing thread; `None` is checked against [`decoy_hash`].
///
/// Errors: [`Error::Panicked`] if the hashing thread is gone.
pub async fn verify(hash: Option<String>, candidate: String) -> Result<bool> {
    on_hashing_thread(move || match &hash {
        Some(hash) => verify_password(hash, &candidate),
        None => verify_password(decoy_hash(), &candidate),
    })
    .await
}

type Job = Box<dyn FnOnce() + Send>;

/// Runs `work` on the one hashing thread (started on first use), after the work queued before it.
async fn on_hashing_thread<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T> {
    static QUEUE: OnceLock<Option<Sender<Job>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (sender, jobs) = channel::<Job>();
        std::thread::Builder::new()
            .name("password-hashing".into())
            .spawn(move || {
                for job in jobs {
                    // A panicking job answers nobody; the thread goes on with the next.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .ok()
            .map(|_| sender)
    });
    let (answer, answered) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = answer.send(work());
    });
    queue
        .as_ref()
        .ok_or(Error::Panicked)?
        .send(job)
        .map_err(|_| Error::Panicked)?;
    answered.await.map_err(|_| Error::Panicked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let password: Password = "correct horse battery".parse().unwrap();
        let hash = hash_password(&password).unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_password(&hash, "correct horse battery"));
        assert!(!verify_password(&hash, "correct horse battery!"));
        assert!(!verify_password("not a hash", "correct horse battery"));
        assert!(!verify_password(decoy_hash(), "correct horse battery"));
    }

    #[test]
    fn hashes_of_the_argon2_crate_still_verify() {
        use argon2::password_hash::PasswordHasher;
        let theirs = Argon2::default()
            .hash_password(b"an older account's password")
            .unwrap()
            .to_string();
        assert!(verify_password(&theirs, "an older account's password"));
        assert!(!verify_password(&theirs, "an older account's passwork"));
        let ours = hash_password(&"an older account's password".parse().unwrap()).unwrap();
        assert!(
            argon2::password_hash::PasswordVerifier::verify_password(
                &Argon2::default(),
                b"an older account's password",
                &PasswordHash::new(&ours).unwrap()
            )
            .is_ok()
        );
    }

    #[actix_rt::test]
    async fn the_queue_answers_each_caller() {
        let password: Password = "queued password one".parse().unwrap();
        let hashed = hash(password).await.unwrap();
        let checks = (0..4).map(|i| {
            let candidate = if i % 2 == 0 {
                "queued password one"
            } else {
                "wrong"
            };
            verify(Some(hashed.clone()), candidate.to_string())
        });
        let answers = futures_util::future::join_all(checks).await;
        let answers: Vec<bool> = answers.into_iter().map(|a| a.unwrap()).collect();
        assert_eq!(answers, [true, false, true, false]);
        assert!(!verify(None, "anything".into()).await.unwrap());
    }
}
