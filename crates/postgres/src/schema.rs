// @generated automatically by Diesel CLI.

diesel::table! {
    analysis_jobs (session_id) {
        session_id -> Uuid,
        campaign_id -> Uuid,
        event_id -> Nullable<Uuid>,
        due_at -> Nullable<Timestamptz>,
        claim_token -> Nullable<Uuid>,
        attempts -> Int4,
        created_at -> Timestamptz,
        tallied -> Bool,
        analyzed_with -> Nullable<Text>,
    }
}

diesel::table! {
    analyzer_in_charge (singleton) {
        singleton -> Bool,
        analyzed_with -> Text,
        started_at -> Timestamptz,
    }
}

diesel::table! {
    answer_analyses (session_id, question_id, step) {
        session_id -> Uuid,
        question_id -> Text,
        step -> Text,
        version -> Text,
        input_digest -> Bytea,
        covered -> Bool,
        score -> Nullable<Float8>,
        phrases_sealed -> Nullable<Bytea>,
        language -> Nullable<Text>,
        other_language -> Bool,
    }
}

diesel::table! {
    answers (session_id, question_id) {
        session_id -> Uuid,
        question_id -> Text,
        rating -> Nullable<Int2>,
        text_sealed -> Nullable<Bytea>,
        word_count -> Int4,
        answered_at -> Timestamptz,
    }
}

diesel::table! {
    api_key_workspaces (api_key_id, workspace_id) {
        api_key_id -> Uuid,
        workspace_id -> Uuid,
        business_id -> Uuid,
        added_at -> Timestamptz,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Uuid,
        service_account_id -> Uuid,
        prefix -> Text,
        digest -> Bytea,
        scopes -> Array<Text>,
        expires_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    app_devices (id) {
        id -> Uuid,
        position -> Int8,
        workspace_id -> Uuid,
        app_id -> Text,
        platform -> Text,
        app_version -> Text,
        device_model -> Nullable<Text>,
        os_version -> Nullable<Text>,
        locale -> Nullable<Text>,
        metadata -> Nullable<Jsonb>,
        vendor_digest -> Nullable<Bytea>,
        status -> Text,
        refresh_digest -> Bytea,
        refresh_expires_at -> Timestamptz,
        user_id -> Nullable<Uuid>,
        identity -> Text,
        latest_install_id -> Uuid,
        first_seen_at -> Timestamptz,
        last_seen_at -> Timestamptz,
        heartbeat_count -> Int8,
        feedback_count -> Int8,
        session_count -> Int8,
        recent_sessions -> Array<Timestamptz>,
        heartbeat_tat -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    app_installs (id) {
        id -> Uuid,
        position -> Int8,
        campaign_id -> Uuid,
        device_id -> Uuid,
        app_id -> Text,
        platform -> Text,
        app_version -> Text,
        device_model -> Nullable<Text>,
        os_version -> Nullable<Text>,
        locale -> Nullable<Text>,
        first_seen_at -> Timestamptz,
        last_seen_at -> Timestamptz,
        heartbeat_count -> Int8,
        feedback_count -> Int8,
        session_count -> Int8,
        recent_sessions -> Array<Timestamptz>,
        heartbeat_tat -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    app_users (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        has_external_id -> Bool,
        email_sealed -> Nullable<Bytea>,
        phone_sealed -> Nullable<Bytea>,
        verified -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    audit_events (position) {
        position -> Int8,
        id -> Uuid,
        workspace_id -> Nullable<Uuid>,
        business_id -> Nullable<Uuid>,
        actor -> Text,
        key_prefix -> Nullable<Text>,
        network -> Nullable<Text>,
        action -> Text,
        target -> Text,
        occurred_at -> Timestamptz,
    }
}

diesel::table! {
    businesses (id) {
        id -> Uuid,
        name -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    call_recordings (id) {
        id -> Uuid,
        message_id -> Uuid,
        campaign_id -> Uuid,
        reference_digest -> Bytea,
        reference_sealed -> Nullable<Bytea>,
        recorded_at -> Timestamptz,
        delete_after -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        claimed_until -> Nullable<Timestamptz>,
        last_failure -> Nullable<Text>,
    }
}

diesel::table! {
    campaign_counts (campaign_id, slot) {
        campaign_id -> Uuid,
        slot -> Int2,
        invited -> Int8,
        invited_with_email -> Int8,
        invited_with_phone -> Int8,
        responded -> Int8,
        started -> Int8,
        completed -> Int8,
    }
}

diesel::table! {
    campaigns (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        survey_id -> Uuid,
        code -> Text,
        name -> Text,
        status -> Text,
        audience -> Text,
        require_signed -> Bool,
        quality -> Jsonb,
        delivery -> Jsonb,
        order_terms -> Jsonb,
        anonymity_floor -> Int4,
        created_at -> Timestamptz,
        launched_at -> Nullable<Timestamptz>,
        privacy_notice_url -> Nullable<Text>,
        closed_at -> Nullable<Timestamptz>,
        position -> Int8,
    }
}

diesel::table! {
    download_fetches (link_id, window_start) {
        link_id -> Uuid,
        window_start -> Timestamptz,
        fetches -> Int4,
    }
}

diesel::table! {
    erasures (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        kind -> Text,
        subject_id -> Uuid,
        erased_at -> Timestamptz,
    }
}

diesel::table! {
    export_files (export_id) {
        export_id -> Uuid,
        bytes -> Bytea,
    }
}

diesel::table! {
    export_workers (worker_id) {
        worker_id -> Uuid,
        seen_at -> Timestamptz,
    }
}

diesel::table! {
    exports (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        campaign_id -> Uuid,
        campaign_code -> Text,
        format -> Text,
        include_transcripts -> Bool,
        status -> Text,
        requested_by -> Uuid,
        created_at -> Timestamptz,
        started_at -> Nullable<Timestamptz>,
        finished_at -> Nullable<Timestamptz>,
        failure_code -> Nullable<Text>,
        failure_description -> Nullable<Text>,
        expires_at -> Nullable<Timestamptz>,
        byte_size -> Nullable<Int8>,
        sha256 -> Nullable<Text>,
        attempts -> Int4,
        claim_token -> Nullable<Uuid>,
        lease_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    idempotency_keys (scope, key) {
        scope -> Text,
        key -> Text,
        claim_token -> Uuid,
        fingerprint -> Bytea,
        status -> Nullable<Int2>,
        sealed_body -> Nullable<Bytea>,
        created_at -> Timestamptz,
        locked_at -> Timestamptz,
    }
}

diesel::table! {
    launch_keys (id) {
        id -> Uuid,
        campaign_id -> Uuid,
        slot -> Int2,
        fingerprint -> Text,
        secret_sealed -> Bytea,
        created_at -> Timestamptz,
        last_used_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    launch_links (id) {
        id -> Uuid,
        campaign_id -> Uuid,
        nonce_digest -> Nullable<Bytea>,
        respondent_id -> Nullable<Uuid>,
        language -> Nullable<Text>,
        external_user_digest -> Nullable<Bytea>,
        device -> Jsonb,
        attributes -> Jsonb,
        expires_at -> Nullable<Timestamptz>,
        spent_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    outreach_calls (message_id) {
        message_id -> Uuid,
        provider_call_id -> Nullable<Text>,
        session_id -> Nullable<Uuid>,
        session_token_sealed -> Nullable<Bytea>,
        outcome -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    outreach_messages (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        campaign_id -> Uuid,
        respondent_id -> Uuid,
        channel -> Text,
        kind -> Text,
        sequence -> Int2,
        status -> Text,
        attempts -> Int4,
        due_at -> Timestamptz,
        claim_token -> Nullable<Uuid>,
        claimed_until -> Nullable<Timestamptz>,
        sent_at -> Nullable<Timestamptz>,
        address_digest -> Nullable<Bytea>,
        provider_message_id -> Nullable<Text>,
        reason -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    outreach_opt_outs (workspace_id, address_digest) {
        workspace_id -> Uuid,
        address_digest -> Bytea,
        family -> Text,
        source -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    quota_windows (subject, family, window_start) {
        subject -> Text,
        family -> Text,
        window_start -> Timestamptz,
        count -> Int4,
    }
}

diesel::table! {
    respondents (id) {
        id -> Uuid,
        campaign_id -> Uuid,
        external_ref -> Nullable<Text>,
        name_sealed -> Nullable<Bytea>,
        email_sealed -> Nullable<Bytea>,
        phone_sealed -> Nullable<Bytea>,
        invitation_sealed -> Nullable<Bytea>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        responded -> Bool,
        ref_digest -> Nullable<Bytea>,
        ref_sealed -> Nullable<Bytea>,
        time_zone_sealed -> Nullable<Bytea>,
    }
}

diesel::table! {
    result_counts (campaign_id, metric, question_id, value) {
        campaign_id -> Uuid,
        metric -> Text,
        question_id -> Text,
        value -> Int8,
        n -> Int8,
    }
}

diesel::table! {
    result_day_counts (campaign_id, day, metric, question_id, value) {
        campaign_id -> Uuid,
        day -> Int8,
        metric -> Text,
        question_id -> Text,
        value -> Int8,
        upto -> Array<Nullable<Int8>>,
    }
}

diesel::table! {
    result_phrases (campaign_id, key_digest, label_digest) {
        campaign_id -> Uuid,
        key_digest -> Bytea,
        label_digest -> Bytea,
        phrase_sealed -> Bytea,
    }
}

diesel::table! {
    result_quotes (session_id, question_id) {
        session_id -> Uuid,
        question_id -> Text,
        campaign_id -> Uuid,
        score -> Nullable<Float8>,
        len -> Int4,
        text_sealed -> Bytea,
        segment_id -> Nullable<Int8>,
    }
}

diesel::table! {
    result_segment_counts (segment_id, metric, question_id, value) {
        segment_id -> Int8,
        metric -> Text,
        question_id -> Text,
        value -> Int8,
        n -> Int8,
    }
}

diesel::table! {
    result_segment_day_counts (segment_id, day, metric, question_id, value) {
        segment_id -> Int8,
        day -> Int8,
        metric -> Text,
        question_id -> Text,
        value -> Int8,
        upto -> Array<Nullable<Int8>>,
    }
}

diesel::table! {
    result_segment_theme_labels (segment_id, scope, key_digest, label_digest) {
        segment_id -> Int8,
        scope -> Text,
        key_digest -> Bytea,
        label_digest -> Bytea,
        mentions -> Int8,
    }
}

diesel::table! {
    result_segment_themes (segment_id, scope, key_digest) {
        segment_id -> Int8,
        scope -> Text,
        key_digest -> Bytea,
        sessions -> Int8,
        score_sum -> Int8,
        scores -> Int8,
    }
}

diesel::table! {
    result_segments (id) {
        id -> Int8,
        campaign_id -> Uuid,
        labels_digest -> Bytea,
        platform -> Nullable<Text>,
        app_version -> Nullable<Text>,
        tags -> Array<Nullable<Text>>,
        attributes -> Jsonb,
        language -> Nullable<Text>,
    }
}

diesel::table! {
    result_sessions (session_id) {
        session_id -> Uuid,
        campaign_id -> Uuid,
        accepted -> Bool,
        platform -> Nullable<Text>,
        app_version -> Nullable<Text>,
        device_id -> Nullable<Uuid>,
        tags -> Array<Nullable<Text>>,
        attributes -> Jsonb,
        metrics -> Array<Nullable<Text>>,
        questions -> Array<Nullable<Text>>,
        vals -> Array<Nullable<Int8>>,
        ns -> Array<Nullable<Int8>>,
        completed_slot -> Nullable<Int8>,
        language -> Nullable<Text>,
    }
}

diesel::table! {
    result_slice_counts (campaign_id, dimension, dimension_value, metric, question_id, value) {
        campaign_id -> Uuid,
        dimension -> Text,
        dimension_value -> Text,
        metric -> Text,
        question_id -> Text,
        value -> Int8,
        n -> Int8,
    }
}

diesel::table! {
    result_slice_theme_labels (campaign_id, dimension, dimension_value, scope, key_digest, label_digest) {
        campaign_id -> Uuid,
        dimension -> Text,
        dimension_value -> Text,
        scope -> Text,
        key_digest -> Bytea,
        label_digest -> Bytea,
        mentions -> Int8,
    }
}

diesel::table! {
    result_slice_themes (campaign_id, dimension, dimension_value, scope, key_digest) {
        campaign_id -> Uuid,
        dimension -> Text,
        dimension_value -> Text,
        scope -> Text,
        key_digest -> Bytea,
        sessions -> Int8,
        score_sum -> Int8,
        scores -> Int8,
    }
}

diesel::table! {
    result_theme_labels (campaign_id, scope, key_digest, label_digest) {
        campaign_id -> Uuid,
        scope -> Text,
        key_digest -> Bytea,
        label_digest -> Bytea,
        mentions -> Int8,
    }
}

diesel::table! {
    result_theme_shares (session_id, scope, key_digest, label_digest) {
        session_id -> Uuid,
        campaign_id -> Uuid,
        scope -> Text,
        key_digest -> Bytea,
        label_digest -> Bytea,
        mentions -> Int8,
        score_sum -> Int8,
        scores -> Int8,
    }
}

diesel::table! {
    result_themes (campaign_id, scope, key_digest) {
        campaign_id -> Uuid,
        scope -> Text,
        key_digest -> Bytea,
        sessions -> Int8,
        score_sum -> Int8,
        scores -> Int8,
    }
}

diesel::table! {
    service_accounts (id) {
        id -> Uuid,
        business_id -> Nullable<Uuid>,
        name -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    session_analyses (session_id) {
        session_id -> Uuid,
        campaign_id -> Uuid,
        rejection -> Nullable<Text>,
        duration_secs -> Int4,
        coverage -> Float8,
        words -> Int4,
        analyzed_at -> Timestamptz,
    }
}

diesel::table! {
    sessions (id) {
        id -> Uuid,
        campaign_id -> Uuid,
        token_digest -> Bytea,
        language -> Text,
        respondent_id -> Nullable<Uuid>,
        launch_link_id -> Nullable<Uuid>,
        launch_key_id -> Nullable<Uuid>,
        external_user_digest -> Nullable<Bytea>,
        tags -> Array<Text>,
        context -> Jsonb,
        status -> Text,
        answered -> Int4,
        total -> Int4,
        started_at -> Timestamptz,
        completed_at -> Nullable<Timestamptz>,
        device_id -> Nullable<Uuid>,
        app_user_id -> Nullable<Uuid>,
        app_install_id -> Nullable<Uuid>,
        identity -> Nullable<Text>,
        exchanges -> Int4,
    }
}

diesel::table! {
    spent_challenges (fingerprint) {
        fingerprint -> Bytea,
        expires_at -> Timestamptz,
    }
}

diesel::table! {
    spent_launch_tokens (campaign_id, jti) {
        campaign_id -> Uuid,
        jti -> Text,
        launch_key_id -> Uuid,
        expires_at -> Timestamptz,
        spent_at -> Timestamptz,
    }
}

diesel::table! {
    surveys (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        title -> Text,
        languages -> Array<Text>,
        questions -> Jsonb,
        created_at -> Timestamptz,
        register -> Text,
    }
}

diesel::table! {
    webhook_attempts (delivery_id, attempt) {
        delivery_id -> Uuid,
        attempt -> Int4,
        attempted_at -> Timestamptz,
        status_code -> Nullable<Int4>,
        error -> Nullable<Text>,
        duration_ms -> Int4,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Uuid,
        position -> Int8,
        subscription_id -> Uuid,
        event_id -> Uuid,
        status -> Text,
        attempts -> Int4,
        next_attempt_at -> Nullable<Timestamptz>,
        claim_token -> Nullable<Uuid>,
        last_status_code -> Nullable<Int4>,
        last_error -> Nullable<Text>,
        delivered_at -> Nullable<Timestamptz>,
        attempts_before_redelivery -> Int4,
    }
}

diesel::table! {
    webhook_events (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        event_type -> Text,
        aggregate -> Text,
        aggregate_id -> Uuid,
        payload -> Jsonb,
        occurred_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_redeliveries (delivery_id, attempts_before) {
        delivery_id -> Uuid,
        attempts_before -> Int4,
        requested_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_subscriptions (id) {
        id -> Uuid,
        workspace_id -> Uuid,
        url -> Text,
        description -> Nullable<Text>,
        event_types -> Array<Text>,
        secret_sealed -> Bytea,
        is_active -> Bool,
        disabled_at -> Nullable<Timestamptz>,
        disabled_reason -> Nullable<Text>,
        dead_in_a_row -> Int4,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        previous_secret_sealed -> Nullable<Bytea>,
        previous_secret_expires_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    workspaces (id) {
        id -> Uuid,
        business_id -> Uuid,
        external_ref -> Text,
        name -> Text,
        slug -> Text,
        kind -> Text,
        team -> Nullable<Text>,
        location -> Nullable<Text>,
        status -> Text,
        created_at -> Timestamptz,
        time_zone -> Nullable<Text>,
    }
}

diesel::joinable!(analysis_jobs -> campaigns (campaign_id));
diesel::joinable!(analysis_jobs -> sessions (session_id));
diesel::joinable!(analysis_jobs -> webhook_events (event_id));
diesel::joinable!(answer_analyses -> sessions (session_id));
diesel::joinable!(answers -> sessions (session_id));
diesel::joinable!(api_key_workspaces -> api_keys (api_key_id));
diesel::joinable!(api_keys -> service_accounts (service_account_id));
diesel::joinable!(app_devices -> app_users (user_id));
diesel::joinable!(app_users -> workspaces (workspace_id));
diesel::joinable!(call_recordings -> campaigns (campaign_id));
diesel::joinable!(call_recordings -> outreach_messages (message_id));
diesel::joinable!(campaign_counts -> campaigns (campaign_id));
diesel::joinable!(campaigns -> surveys (survey_id));
diesel::joinable!(campaigns -> workspaces (workspace_id));
diesel::joinable!(erasures -> workspaces (workspace_id));
diesel::joinable!(export_files -> exports (export_id));
diesel::joinable!(exports -> api_keys (requested_by));
diesel::joinable!(exports -> campaigns (campaign_id));
diesel::joinable!(exports -> workspaces (workspace_id));
diesel::joinable!(launch_keys -> campaigns (campaign_id));
diesel::joinable!(launch_links -> campaigns (campaign_id));
diesel::joinable!(launch_links -> respondents (respondent_id));
diesel::joinable!(outreach_calls -> outreach_messages (message_id));
diesel::joinable!(outreach_calls -> sessions (session_id));
diesel::joinable!(outreach_messages -> campaigns (campaign_id));
diesel::joinable!(outreach_messages -> respondents (respondent_id));
diesel::joinable!(outreach_messages -> workspaces (workspace_id));
diesel::joinable!(outreach_opt_outs -> workspaces (workspace_id));
diesel::joinable!(respondents -> campaigns (campaign_id));
diesel::joinable!(result_counts -> campaigns (campaign_id));
diesel::joinable!(result_day_counts -> campaigns (campaign_id));
diesel::joinable!(result_phrases -> campaigns (campaign_id));
diesel::joinable!(result_quotes -> campaigns (campaign_id));
diesel::joinable!(result_quotes -> sessions (session_id));
diesel::joinable!(result_segment_counts -> result_segments (segment_id));
diesel::joinable!(result_segment_day_counts -> result_segments (segment_id));
diesel::joinable!(result_segment_theme_labels -> result_segments (segment_id));
diesel::joinable!(result_segment_themes -> result_segments (segment_id));
diesel::joinable!(result_segments -> campaigns (campaign_id));
diesel::joinable!(result_sessions -> campaigns (campaign_id));
diesel::joinable!(result_sessions -> sessions (session_id));
diesel::joinable!(result_slice_counts -> campaigns (campaign_id));
diesel::joinable!(result_slice_theme_labels -> campaigns (campaign_id));
diesel::joinable!(result_slice_themes -> campaigns (campaign_id));
diesel::joinable!(result_theme_labels -> campaigns (campaign_id));
diesel::joinable!(result_theme_shares -> campaigns (campaign_id));
diesel::joinable!(result_theme_shares -> sessions (session_id));
diesel::joinable!(result_themes -> campaigns (campaign_id));
diesel::joinable!(service_accounts -> businesses (business_id));
diesel::joinable!(session_analyses -> campaigns (campaign_id));
diesel::joinable!(session_analyses -> sessions (session_id));
diesel::joinable!(sessions -> app_devices (device_id));
diesel::joinable!(sessions -> app_installs (app_install_id));
diesel::joinable!(sessions -> app_users (app_user_id));
diesel::joinable!(sessions -> campaigns (campaign_id));
diesel::joinable!(sessions -> launch_keys (launch_key_id));
diesel::joinable!(sessions -> launch_links (launch_link_id));
diesel::joinable!(sessions -> respondents (respondent_id));
diesel::joinable!(spent_launch_tokens -> campaigns (campaign_id));
diesel::joinable!(surveys -> workspaces (workspace_id));
diesel::joinable!(webhook_attempts -> webhook_deliveries (delivery_id));
diesel::joinable!(webhook_deliveries -> webhook_events (event_id));
diesel::joinable!(webhook_deliveries -> webhook_subscriptions (subscription_id));
diesel::joinable!(webhook_events -> workspaces (workspace_id));
diesel::joinable!(webhook_redeliveries -> webhook_deliveries (delivery_id));
diesel::joinable!(webhook_subscriptions -> workspaces (workspace_id));
diesel::joinable!(workspaces -> businesses (business_id));

diesel::allow_tables_to_appear_in_same_query!(
    analysis_jobs,
    analyzer_in_charge,
    answer_analyses,
    answers,
    api_key_workspaces,
    api_keys,
    app_devices,
    app_installs,
    app_users,
    audit_events,
    businesses,
    call_recordings,
    campaign_counts,
    campaigns,
    download_fetches,
    erasures,
    export_files,
    export_workers,
    exports,
    idempotency_keys,
    launch_keys,
    launch_links,
    outreach_calls,
    outreach_messages,
    outreach_opt_outs,
    quota_windows,
    respondents,
    result_counts,
    result_day_counts,
    result_phrases,
    result_quotes,
    result_segment_counts,
    result_segment_day_counts,
    result_segment_theme_labels,
    result_segment_themes,
    result_segments,
    result_sessions,
    result_slice_counts,
    result_slice_theme_labels,
    result_slice_themes,
    result_theme_labels,
    result_theme_shares,
    result_themes,
    service_accounts,
    session_analyses,
    sessions,
    spent_challenges,
    spent_launch_tokens,
    surveys,
    webhook_attempts,
    webhook_deliveries,
    webhook_events,
    webhook_redeliveries,
    webhook_subscriptions,
    workspaces,
);
