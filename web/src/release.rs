//! The release feed: the latest release version of the project, cached.
//!
//! The appliance has no internet, so there is no feed by default and the answer is null. With
//! `--release-feed-url` (plain http, e.g. a LAN mirror) the feed is asked at most once every five
//! minutes, with a 2-second timeout; a failure caches null for the same five minutes. The feed is
//! JSON with `tag_name` (a GitHub release) or `version`; a leading `v` is dropped.

use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// How long an answer is kept.
pub const CACHE_FOR: Duration = Duration::from_secs(5 * 60);
/// Longest wait for the feed.
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// The cached answer of the release feed.
#[derive(Debug, Default)]
pub struct LatestVersion {
    feed: Option<String>,
    cached: Mutex<Option<(Instant, Option<String>)>>,
}

impl LatestVersion {
    /// A cache over `feed` (`None`: no feed, always null).
    pub fn new(feed: Option<String>) -> Self {
        LatestVersion {
            feed,
            cached: Mutex::new(None),
        }
    }

    /// The latest version, from the cache when it is younger than [`CACHE_FOR`].
    pub async fn get(&self) -> Option<String> {
        let feed = self.feed.as_ref()?;
        let mut cached = self.cached.lock().await;
        if let Some((at, version)) = cached.as_ref()
            && at.elapsed() < CACHE_FOR
        {
            return version.clone();
        }
        let version = fetch(feed).await;
        *cached = Some((Instant::now(), version.clone()));
        version
    }
}

async fn fetch(feed: &str) -> Option<String> {
    let client = reqwest::Client::builder().timeout(TIMEOUT).build().ok()?;
    let body: serde_json::Value = client
        .get(feed)
        .send()
        .await
        .ok()?
        .error_for_status()
        .ok()?
        .json()
        .await
        .ok()?;
    let version = body
        .get("tag_name")
        .or_else(|| body.get("version"))?
        .as_str()?;
    Some(version.trim_start_matches('v').to_string())
}
