//! Messages from the network are hostile until checked: arbitrary bytes decoded as a job or
//! a result, and fields set to anything, must give a value or a typed error, never a panic.

use hakase_proto::job::{JobAnswer, JobKind, JobSpec};
use hakase_proto::v1;
use proptest::prelude::*;
use prost::Message;

const ANSWERS: usize = 300;
const GUESSES: usize = 900;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn jobs_from_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(job) = v1::Job::decode(bytes.as_slice()) {
            let _ = JobSpec::from_proto(&job, ANSWERS, GUESSES);
        }
    }

    #[test]
    fn results_from_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(result) = v1::JobResult::decode(bytes.as_slice()) {
            let _ = JobAnswer::from_proto(&result, GUESSES);
        }
    }

    #[test]
    fn jobs_with_arbitrary_fields(
        id in proptest::collection::vec(any::<u8>(), 0..20),
        kind in any::<i32>(),
        guess in any::<u32>(),
        guesses_left in any::<u32>(),
        beta in any::<u32>(),
        candidates in proptest::collection::vec(0u32..400, 0..80),
        slice in (any::<u32>(), any::<u32>()),
    ) {
        let job = v1::Job {
            id,
            kind,
            guess,
            slice_from: slice.0,
            slice_to: slice.1,
            guesses_left,
            beta,
            candidates,
            ..Default::default()
        };
        if let Ok((_, spec, _)) = JobSpec::from_proto(&job, ANSWERS, GUESSES) {
            // What is accepted stays within the game.
            prop_assert!(spec.node.candidates.iter().all(|&a| (a as usize) < ANSWERS));
            prop_assert!(spec.node.guesses_left <= 64);
            if let JobKind::Slice { from, to } = spec.kind {
                prop_assert!(from < to && (to as usize) <= GUESSES);
            }
        }
    }

    #[test]
    fn results_with_arbitrary_fields(
        job_id in proptest::collection::vec(any::<u8>(), 0..20),
        exact in any::<bool>(),
        value in any::<u32>(),
        guess in any::<u32>(),
        beta in any::<u32>(),
        tree in proptest::collection::vec(any::<u8>(), 0..120),
    ) {
        let result = v1::JobResult {
            job_id,
            exact,
            value,
            guess,
            beta,
            tree,
            ..Default::default()
        };
        let _ = JobAnswer::from_proto(&result, GUESSES);
    }
}
