//! The work of an export or import on S3, on the runtime the fake was built on (or the caller's),
//! and its end, back in the engine: the export's or import's outcome, and an import's table
//! filled (or, when its source could not be read, taken away).

use super::export::{ExportJob, summary_objects};
use super::import::{Counts, ImportJob};
use super::s3::S3Failure;
use super::{Job, Outcome};
use crate::fake::FakeDynamoDb;
use crate::ops::write::MAX_ITEM_BYTES;
use crate::place::{OwnedPlace, Place};
use crate::value::{Item, item_size};

/// DynamoDB's failure of an import some of whose items were refused.
const ITEM_VALIDATION_ERROR: &str = "ItemValidationError";
const ITEM_VALIDATION_MESSAGE: &str = "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details.";

impl FakeDynamoDb {
    /// Starts the work on S3 that a request for `place` left: each job on the runtime, or, with
    /// no runtime to run it on, ends it failed at once. Its end goes back to the engine of `place`.
    pub(crate) fn start_transfers(&self, jobs: Vec<Job>, place: Place<'_>) {
        for job in jobs {
            let place = place.to_owned();
            let runtime = tokio::runtime::Handle::try_current().ok().or_else(|| self.shared.runtime.clone());
            match (runtime, self.shared.s3.clone()) {
                (Some(runtime), Some(s3)) => {
                    let fake = self.clone();
                    runtime.spawn(async move {
                        match job {
                            Job::Export(job) => fake.run_export(*job, &s3, &place).await,
                            Job::Import(job) => fake.run_import(*job, &s3, &place).await,
                        }
                    });
                }
                _ => {
                    let failure = S3Failure {
                        code: "UNKNOWN".into(),
                        message: "dynalease-fake has no tokio runtime to run the transfer on".into(),
                    };
                    match job {
                        Job::Export(job) => self.end_export(&place, &job.export.arn, Err(failure)),
                        Job::Import(job) => self.end_import(&place, &job, Err(failure), Vec::new(), Counts::default()),
                    }
                }
            }
        }
    }

    async fn run_export(&self, job: ExportJob, s3: &super::S3Target, place: &OwnedPlace) {
        let ExportJob { export, objects } = job;
        let bucket = export.request.bucket.clone();
        let mut result = Ok(());
        for (key, body) in objects {
            result = s3.put(&bucket, &key, body).await;
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            let end = self.now().max(export.progress.ready_at);
            for (key, body) in summary_objects(&export, end) {
                result = s3.put(&bucket, &key, body).await;
                if result.is_err() {
                    break;
                }
            }
        }
        self.end_export(place, &export.arn, result);
    }

    fn end_export(&self, place: &OwnedPlace, arn: &str, result: Result<(), S3Failure>) {
        let now = self.now();
        let mut accounts = self.lock_accounts();
        let Some(engine) = accounts.engine_mut(place.as_place()) else { return };
        if let Some(export) = engine.transfers.exports.get_mut(arn) {
            export.progress.outcome = Some(match result {
                Ok(()) => Outcome::Completed(now),
                Err(failure) => Outcome::Failed(now, failure.code, failure.message),
            });
        }
    }

    async fn run_import(&self, job: ImportJob, s3: &super::S3Target, place: &OwnedPlace) {
        let mut counts = Counts::default();
        let mut items = Vec::new();
        let result = async {
            let keys = s3.list(&job.bucket, job.prefix.as_deref()).await?;
            for key in keys.iter().filter(|key| !key.ends_with('/')) {
                let content = s3.get(&job.bucket, key).await?;
                let read = job.read(&content);
                counts.processed_bytes += read.bytes;
                for record in read.records {
                    counts.processed_items += 1;
                    match record {
                        Ok(item) => items.push(item),
                        Err(_) => counts.errors += 1,
                    }
                }
            }
            Ok(())
        }
        .await;
        self.end_import(place, &job, result, items, counts);
    }

    /// Ends an import: a source that could not be read fails it and takes its table away; else
    /// the items go into the table, which becomes active, and the import completes unless an item
    /// was refused.
    fn end_import(
        &self,
        place: &OwnedPlace,
        job: &ImportJob,
        result: Result<(), S3Failure>,
        items: Vec<Item>,
        mut counts: Counts,
    ) {
        let now = self.now();
        let mut accounts = self.lock_accounts();
        let Some(engine) = accounts.engine_mut(place.as_place()) else { return };
        let ready_at = match engine.transfers.imports.get(&job.arn) {
            Some(import) => import.progress.ready_at,
            None => return,
        };
        let ours = engine.tables.get(&job.table).is_some_and(|table| table.table_id == job.table_id);
        let outcome = match (result, ours) {
            (Err(failure), _) => {
                if ours {
                    engine.tables.remove(&job.table);
                }
                Outcome::Failed(now, failure.code, failure.message)
            }
            (Ok(()), false) => Outcome::Failed(now, "UNKNOWN".into(), "The table of the import was deleted".into()),
            (Ok(()), true) => {
                if let Some(table) = engine.tables.get_mut(&job.table) {
                    for item in items {
                        let size = item_size(&item);
                        let key = (size <= MAX_ITEM_BYTES).then(|| table.item_key(&item).ok()).flatten();
                        match key {
                            Some(key) => {
                                table.put(key, item, size, now);
                                counts.imported += 1;
                            }
                            None => counts.errors += 1,
                        }
                    }
                    crate::stale::start_from_now(table);
                    table.creating_until = (ready_at > now).then_some(ready_at);
                }
                if counts.errors == 0 {
                    Outcome::Completed(now)
                } else {
                    Outcome::Failed(now, ITEM_VALIDATION_ERROR.into(), ITEM_VALIDATION_MESSAGE.into())
                }
            }
        };
        if let Some(import) = engine.transfers.imports.get_mut(&job.arn) {
            import.progress.outcome = Some(outcome);
            import.counts = counts;
        }
    }
}
