//! The SQL fragments a filtered read is made of: which sessions, segments and quotes a filter
//! selects, and how its values are bound.

/// Whether result session `r` is in the group of a filter: `$2` platform (ASCII lower case), `$3`
/// app version, `$4` tags, `$5` attributes (names to the texts compared), `$6` language (a
/// canonical language tag). Without a launch label,
/// a session's platform and app version are its device's as they are now.
macro_rules! selected {
    () => {
        "($2::text IS NULL OR COALESCE(r.platform,
              (SELECT d.platform FROM app_devices d WHERE d.id = r.device_id)) = $2)
         AND ($3::text IS NULL OR COALESCE(r.app_version,
              (SELECT d.app_version FROM app_devices d WHERE d.id = r.device_id)) = $3)
         AND r.tags @> $4::text[] AND r.attributes @> $5::jsonb AND ($6::text IS NULL OR r.language = $6)"
    };
}

/// Whether segment `s` (migration `000019_result_segments`) is in the group of a filter: the same
/// conditions as [`selected`], on the labels every session of the segment was launched with.
macro_rules! segment_selected {
    () => {
        "($2::text IS NULL OR s.platform = $2) AND ($3::text IS NULL OR s.app_version = $3)
         AND s.tags @> $4::text[] AND s.attributes @> $5::jsonb AND ($6::text IS NULL OR s.language = $6)"
    };
}

/// The sessions of campaign `$1` in no segment, because their platform or app version is their
/// device's, that a filter selects (see [`selected`]).
macro_rules! unsegmented {
    () => {
        concat!(
            "r.campaign_id = $1 AND r.device_id IS NOT NULL AND (r.platform IS NULL OR r.app_version IS NULL) AND ",
            selected!()
        )
    };
}

/// The sessions of campaign `$1` a filter selects (see [`selected`]).
macro_rules! filtered_sessions {
    () => {
        concat!(
            "SELECT r.session_id, r.accepted, r.metrics, r.questions, r.vals, r.ns FROM result_sessions r
             WHERE r.campaign_id = $1 AND ",
            selected!()
        )
    };
}

/// The quote candidates of question `qs.question_id` among the quotes `q` that `$scope` keeps (a
/// campaign's or a segment's), as `(question_id, session_id, score, len, text_sealed)`: the first
/// `$n` (`$longest` for the longest) in each pick order
/// (`pulse_domain::results::models::QUOTE_CANDIDATES`), walked through the indexes on
/// `result_quotes` in that order.
macro_rules! pick_orders {
    ($scope:literal, $n:literal, $longest:literal) => {
        concat!(
            "(SELECT q.question_id, q.session_id, q.score, q.len, q.text_sealed FROM result_quotes q
              WHERE ",
            $scope,
            " AND q.question_id = qs.question_id
              ORDER BY COALESCE(q.score, 0) DESC, q.len DESC, q.session_id FETCH FIRST (",
            $n,
            ") ROWS ONLY)
             UNION
             (SELECT q.question_id, q.session_id, q.score, q.len, q.text_sealed FROM result_quotes q
              WHERE ",
            $scope,
            " AND q.question_id = qs.question_id
              ORDER BY COALESCE(q.score, 0), q.len, q.session_id DESC FETCH FIRST (",
            $n,
            ") ROWS ONLY)
             UNION
             (SELECT q.question_id, q.session_id, q.score, q.len, q.text_sealed FROM result_quotes q
              WHERE ",
            $scope,
            " AND q.question_id = qs.question_id
              ORDER BY abs(COALESCE(q.score, 0)), COALESCE(q.score, 0) DESC, q.len DESC, q.session_id
              FETCH FIRST (",
            $n,
            ") ROWS ONLY)
             UNION
             (SELECT q.question_id, q.session_id, q.score, q.len, q.text_sealed FROM result_quotes q
              WHERE ",
            $scope,
            " AND q.question_id = qs.question_id
              ORDER BY q.len DESC, COALESCE(q.score, 0) DESC, q.session_id FETCH FIRST (",
            $longest,
            ") ROWS ONLY)"
        )
    };
}

/// The quote candidates among rows `c(question_id, session_id, score, len, text_sealed)`: the first
/// `$8` in each pick order (`$9` for the longest) per question, as in [`pick_orders`]. A question is
/// scored when one of its rows has a score, or when table `zero(question_id)` names it.
macro_rules! ranked_candidates {
    () => {
        "r AS (SELECT c.*, COALESCE(c.score, 0) AS s FROM c),
         n AS (SELECT r.*,
                 row_number() OVER (PARTITION BY question_id ORDER BY s DESC, len DESC, session_id) AS top,
                 row_number() OVER (PARTITION BY question_id ORDER BY s, len, session_id DESC) AS bottom,
                 row_number() OVER (PARTITION BY question_id ORDER BY abs(s), s DESC, len DESC, session_id) AS neutral,
                 row_number() OVER (PARTITION BY question_id ORDER BY len DESC, s DESC, session_id) AS longest,
                 bool_or(score IS NOT NULL) OVER (PARTITION BY question_id) AS scored_here
               FROM r)
         SELECT n.question_id, n.session_id, n.score, n.text_sealed,
                CASE WHEN n.scored_here THEN true
                     ELSE EXISTS (SELECT 1 FROM zero WHERE zero.question_id = n.question_id) END AS scored
         FROM n WHERE n.top <= $8 OR n.bottom <= $8 OR n.neutral <= $8 OR n.longest <= $9"
    };
}

/// Binds campaign `$1` and a filter's `$2` to `$6` (see [`selected`]) to a query.
macro_rules! bind_filter {
    ($query:expr, $campaign:expr, $binds:expr) => {
        $query
            .bind::<SqlUuid, _>($campaign.0)
            .bind::<Nullable<Text>, _>(&$binds.platform)
            .bind::<Nullable<Text>, _>(&$binds.version)
            .bind::<Array<Text>, _>(&$binds.tags)
            .bind::<Jsonb, _>(&$binds.attributes)
            .bind::<Nullable<Text>, _>(&$binds.language)
    };
}

/// The sessions of campaign `$1` in no slice of dimension `$2` (`platform` or `appVersion`, when
/// `$4`) because they have no such label, whose device's value now is `$3`.
macro_rules! device_labelled {
    () => {
        "$4 AND r.campaign_id = $1 AND r.device_id IS NOT NULL AND (r.platform IS NULL OR r.app_version IS NULL)
         AND CASE WHEN $2 = 'platform'
             THEN r.platform IS NULL AND (SELECT d.platform FROM app_devices d WHERE d.id = r.device_id) = $3
             ELSE r.app_version IS NULL AND (SELECT d.app_version FROM app_devices d WHERE d.id = r.device_id) = $3
             END"
    };
}

/// The accepted sessions of campaign `$1` that a filter selects (see [`selected`]) as rows of
/// `(language, platform, app_version, tags, attributes, n)`: each segment once with its count, and each
/// session in no segment alone, with its device's platform and app version where it has none.
/// Linear in the campaign's segments, not in its sessions.
macro_rules! accepted_units {
    () => {
        concat!(
            "SELECT s.language, s.platform, s.app_version, s.tags, s.attributes, c.n
             FROM result_segments s JOIN result_segment_counts c ON c.segment_id = s.id
             WHERE s.campaign_id = $1 AND c.metric = 'accepted' AND c.question_id = '' AND c.value = 0 AND c.n > 0
               AND ",
            segment_selected!(),
            "
             UNION ALL
             SELECT r.language, COALESCE(r.platform, d.platform), COALESCE(r.app_version, d.app_version), r.tags,
                    r.attributes, 1::bigint
             FROM result_sessions r LEFT JOIN app_devices d ON d.id = r.device_id
             WHERE r.accepted AND ",
            unsegmented!()
        )
    };
}

/// The cell of labels row `u` (columns `language`, `platform`, `app_version`, `tags`,
/// `attributes`): bit
/// `i - 1` set for each condition `i` of table `f(kind, name, value, i)` it meets.
macro_rules! cell_mask {
    () => {
        "(SELECT COALESCE(sum(1::bigint << (f.i - 1)::int), 0)::bigint FROM f
          WHERE CASE f.kind WHEN 'platform' THEN u.platform = f.value
                            WHEN 'appVersion' THEN u.app_version = f.value
                            WHEN 'language' THEN u.language = f.value
                            WHEN 'tag' THEN f.value = ANY (u.tags)
                            ELSE u.attributes ->> f.name = f.value END)"
    };
}

pub(crate) use accepted_units;
pub(crate) use bind_filter;
pub(crate) use cell_mask;
pub(crate) use device_labelled;
pub(crate) use filtered_sessions;
pub(crate) use pick_orders;
pub(crate) use ranked_candidates;
pub(crate) use segment_selected;
pub(crate) use selected;
pub(crate) use unsegmented;
