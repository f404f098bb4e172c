//! Webhook attempts, recorded in groups (see `batch`): one statement moves every delivery still
//! held by its claim to its new state, logs its attempt and resets the run of DEAD deliveries of
//! the endpoints it reached. A group with a DEAD delivery then counts its endpoints' runs attempt
//! by attempt, in the same transaction.

use std::collections::BTreeMap;

use diesel::result::Error as DieselError;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{ExpressionMethods as _, QueryDsl as _, QueryableByName, sql_query};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::webhooks::models::{AttemptRecord, DISABLE_AFTER_DEAD, DeliveryStatus};
use uuid::Uuid;

use crate::batch::{BatchLimits, Flush, GroupCommit};
use crate::error::{from_diesel, from_pool};
use crate::rows::to_i32;
use crate::schema::{webhook_deliveries, webhook_subscriptions};
use crate::statement::Cached as _;

/// A webhook worker keeps hundreds of attempts going; a group holds what they answered meanwhile.
const ATTEMPT_BATCHES: BatchLimits = BatchLimits { max_items: 256, in_flight: 2 };

/// Writes groups of attempts; each answers whether it was recorded (`false`: its claim was lost).
pub(crate) struct AttemptRecords {
    pool: Pool<AsyncPgConnection>,
}

/// The group writer, on `pool`.
pub(crate) fn writer(pool: Pool<AsyncPgConnection>) -> GroupCommit<AttemptRecords> {
    GroupCommit::new(AttemptRecords { pool }, ATTEMPT_BATCHES)
}

impl Flush for AttemptRecords {
    type Item = AttemptRecord;
    type Output = bool;

    async fn flush(&self, attempts: &[AttemptRecord]) -> Result<Vec<bool>> {
        let mut conn = self.pool.get().await.map_err(from_pool)?;
        if attempts.iter().all(|a| a.status != DeliveryStatus::Dead) {
            // One statement is its own transaction.
            return record(&mut conn, attempts).await.map_err(from_diesel);
        }
        conn.transaction::<_, DieselError, _>(async |conn| {
            lock_in_order(conn, attempts).await?;
            let recorded = record(conn, attempts).await?;
            for (subscription, steps) in runs_in_turn(attempts, &recorded) {
                for step in steps {
                    match step {
                        Step::Reset => reset_run(conn, subscription).await?,
                        Step::Dead(attempt) => count_dead(conn, attempt).await?,
                    }
                }
            }
            Ok(recorded)
        })
        .await
        .map_err(from_diesel)
    }
}

/// Locks the group's deliveries, then every endpoint it names at once: [`record`] alone locks only
/// the endpoints whose run it ends, and the runs counted after it would lock the others later, out
/// of order with a group written at the same time.
async fn lock_in_order(
    conn: &mut AsyncPgConnection,
    attempts: &[AttemptRecord],
) -> std::result::Result<(), DieselError> {
    let deliveries: Vec<Uuid> = attempts.iter().map(|a| a.delivery.0).collect();
    webhook_deliveries::table
        .filter(webhook_deliveries::id.eq_any(&deliveries))
        .order(webhook_deliveries::position)
        .select(webhook_deliveries::id)
        .for_update()
        .execute(conn)
        .await?;
    let endpoints: Vec<Uuid> = attempts.iter().map(|a| a.subscription.0).collect();
    webhook_subscriptions::table
        .filter(webhook_subscriptions::id.eq_any(&endpoints))
        .order(webhook_subscriptions::id)
        .select(webhook_subscriptions::id)
        .for_no_key_update()
        .execute(conn)
        .await?;
    Ok(())
}

#[derive(QueryableByName)]
struct RecordedRow {
    /// The attempt's place in the group, from 1.
    #[diesel(sql_type = BigInt)]
    ord: i64,
}

/// Records the attempts whose claim still holds and answers which did, locking their deliveries
/// in the order of their position. An endpoint reached by a recorded delivery ends its run of DEAD
/// deliveries, unless the group also holds a DEAD delivery of it: then [`runs_in_turn`] counts
/// that endpoint's run, in the group's order.
async fn record(
    conn: &mut AsyncPgConnection,
    attempts: &[AttemptRecord],
) -> std::result::Result<Vec<bool>, DieselError> {
    let rows: Vec<RecordedRow> = sql_query(include_str!("record_attempts.sql"))
        .bind::<Array<SqlUuid>, _>(attempts.iter().map(|a| a.delivery.0).collect::<Vec<_>>())
        .bind::<Array<SqlUuid>, _>(attempts.iter().map(|a| a.claim_token).collect::<Vec<_>>())
        .bind::<Array<SqlUuid>, _>(attempts.iter().map(|a| a.subscription.0).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(attempts.iter().map(|a| a.status.as_str()).collect::<Vec<_>>())
        .bind::<Array<Integer>, _>(attempts.iter().map(|a| to_i32(a.attempt)).collect::<Vec<_>>())
        .bind::<Array<Timestamptz>, _>(attempts.iter().map(|a| a.attempted_at).collect::<Vec<_>>())
        .bind::<Array<Nullable<Timestamptz>>, _>(attempts.iter().map(|a| a.next_attempt_at).collect::<Vec<_>>())
        .bind::<Array<Nullable<Integer>>, _>(attempts.iter().map(|a| a.status_code.map(i32::from)).collect::<Vec<_>>())
        .bind::<Array<Nullable<Text>>, _>(attempts.iter().map(|a| a.error.as_deref()).collect::<Vec<_>>())
        .bind::<Array<Integer>, _>(attempts.iter().map(|a| to_i32(a.duration_ms)).collect::<Vec<_>>())
        .cached()
        .load(conn)
        .await?;
    let mut recorded = vec![false; attempts.len()];
    for row in rows {
        if let Some(place) = usize::try_from(row.ord).ok().and_then(|ord| recorded.get_mut(ord.wrapping_sub(1))) {
            *place = true;
        }
    }
    Ok(recorded)
}

/// What a recorded attempt does to its endpoint's run of DEAD deliveries.
#[derive(Debug, PartialEq, Eq)]
enum Step<'a> {
    Reset,
    Dead(&'a AttemptRecord),
}

/// The runs [`record`] left to count: each endpoint with a recorded DEAD delivery, in id order (so
/// groups written at once lock endpoints in one order), with its recorded attempts' steps in the
/// group's order. Resets in a row are one.
fn runs_in_turn<'a>(attempts: &'a [AttemptRecord], recorded: &[bool]) -> BTreeMap<Uuid, Vec<Step<'a>>> {
    let recorded: Vec<&AttemptRecord> =
        attempts.iter().zip(recorded).filter(|(_, recorded)| **recorded).map(|(a, _)| a).collect();
    let mut runs: BTreeMap<Uuid, Vec<Step<'a>>> =
        recorded.iter().filter(|a| a.status == DeliveryStatus::Dead).map(|a| (a.subscription.0, Vec::new())).collect();
    for attempt in recorded {
        let Some(steps) = runs.get_mut(&attempt.subscription.0) else { continue };
        match attempt.status {
            DeliveryStatus::Dead => steps.push(Step::Dead(attempt)),
            DeliveryStatus::Delivered if steps.last() != Some(&Step::Reset) => steps.push(Step::Reset),
            DeliveryStatus::Delivered | DeliveryStatus::Pending | DeliveryStatus::Failed => {}
        }
    }
    runs
}

async fn reset_run(conn: &mut AsyncPgConnection, subscription: Uuid) -> std::result::Result<(), DieselError> {
    diesel::update(
        webhook_subscriptions::table
            .filter(webhook_subscriptions::id.eq(subscription))
            .filter(webhook_subscriptions::dead_in_a_row.gt(0)),
    )
    .set(webhook_subscriptions::dead_in_a_row.eq(0))
    .execute(conn)
    .await?;
    Ok(())
}

/// One more DEAD delivery in the endpoint's run; the fifth in a row disables it with the
/// attempt's reason.
async fn count_dead(conn: &mut AsyncPgConnection, attempt: &AttemptRecord) -> std::result::Result<(), DieselError> {
    // SET reads the row as it was: `dead_in_a_row + 1` is the new run.
    sql_query(
        "UPDATE webhook_subscriptions SET
            dead_in_a_row = dead_in_a_row + 1,
            disabled_at = CASE WHEN is_active AND dead_in_a_row + 1 >= $2 THEN $3 ELSE disabled_at END,
            disabled_reason = CASE WHEN is_active AND dead_in_a_row + 1 >= $2 THEN $4 ELSE disabled_reason END,
            is_active = is_active AND dead_in_a_row + 1 < $2
        WHERE id = $1",
    )
    .bind::<SqlUuid, _>(attempt.subscription.0)
    .bind::<Integer, _>(to_i32(DISABLE_AFTER_DEAD))
    .bind::<Timestamptz, _>(attempt.attempted_at)
    .bind::<Text, _>(&attempt.disable_reason)
    .cached()
    .execute(conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel_async::SimpleAsyncConnection as _;
    use pulse_domain::ids::{DeliveryId, WebhookId};
    use pulse_domain::shared::clock::Clock as _;
    use pulse_testing::contract::World;
    use pulse_testing::contract::webhooks::{endpoint_with, outcome, settle};
    use time::OffsetDateTime;

    use crate::test_db::{TestDatabase, until_settled};
    use crate::{PoolSettings, connect};

    fn attempt(subscription: u128, status: DeliveryStatus) -> AttemptRecord {
        AttemptRecord {
            delivery: DeliveryId::new_random(),
            claim_token: Uuid::new_v4(),
            subscription: WebhookId(Uuid::from_u128(subscription)),
            attempt: 1,
            attempted_at: OffsetDateTime::UNIX_EPOCH,
            status,
            next_attempt_at: None,
            status_code: None,
            error: None,
            duration_ms: 0,
            disable_reason: String::new(),
        }
    }

    /// A redelivery locks an endpoint's deliveries in the order of their position; a group locking
    /// them in its own order could hold a later one while waiting for an earlier one the
    /// redelivery holds, as the redelivery waits for the later one.
    #[tokio::test]
    async fn a_group_locks_its_deliveries_in_the_order_of_their_position() {
        let database = TestDatabase::create().await;
        let store = connect(database.url(), &PoolSettings::default()).expect("a pool");
        let w = World::new(store);
        let partner = w.partner("Acme").await;
        endpoint_with(&w, &partner, 2).await;
        let claimed = settle(&w, w.clock.now(), &[None, None]).await;
        let mut watcher = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        let in_order: Vec<Uuid> = webhook_deliveries::table
            .order(webhook_deliveries::position)
            .select(webhook_deliveries::id)
            .load(&mut watcher)
            .await
            .expect("read");
        let [first, second] = [in_order[0], in_order[1]];
        let record_of = |id: Uuid| {
            let delivery = claimed.iter().find(|d| d.id.0 == id).expect("claimed");
            outcome(delivery, delivery.claim_token, DeliveryStatus::Delivered, w.clock.now())
        };
        let group = [record_of(second), record_of(first)];

        let mut holder = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        holder
            .batch_execute(&format!("BEGIN; SELECT 1 FROM webhook_deliveries WHERE id = '{first}' FOR UPDATE"))
            .await
            .expect("locked");
        let recording = tokio::spawn({
            let url = database.url().to_owned();
            async move {
                let mut conn = AsyncPgConnection::establish(&url).await.expect("a connection");
                record(&mut conn, &group).await.expect("recorded")
            }
        });
        until_settled(&mut watcher, 1, || i64::from(recording.is_finished())).await;
        watcher
            .batch_execute(&format!(
                "BEGIN; SELECT 1 FROM webhook_deliveries WHERE id = '{second}' FOR UPDATE NOWAIT; COMMIT"
            ))
            .await
            .expect("the group held the later delivery while it waited for the earlier one");
        holder.batch_execute("COMMIT").await.expect("released");
        assert_eq!(recording.await.expect("joined"), [true, true]);
    }

    #[test]
    fn only_endpoints_with_a_dead_delivery_are_counted_in_turn_in_arrival_order() {
        use DeliveryStatus::{Dead, Delivered, Failed};
        let attempts = [
            attempt(2, Delivered),
            attempt(2, Delivered),
            attempt(2, Dead),
            attempt(1, Dead),
            attempt(3, Delivered),
            attempt(2, Failed),
            attempt(2, Delivered),
            attempt(1, Delivered),
            attempt(4, Dead),
        ];
        let recorded = [true, true, true, true, true, true, true, true, false];
        let runs = runs_in_turn(&attempts, &recorded);
        let endpoints: Vec<u128> = runs.keys().map(|id| id.as_u128()).collect();
        assert_eq!(endpoints, [1, 2], "in id order; no lost claim and no endpoint without a DEAD one");
        assert_eq!(runs[&Uuid::from_u128(1)], [Step::Dead(&attempts[3]), Step::Reset]);
        assert_eq!(runs[&Uuid::from_u128(2)], [Step::Reset, Step::Dead(&attempts[2]), Step::Reset]);
    }
}
