// The tables of `migrations/`, for diesel's query builder.

diesel::table! {
    businesses (id) {
        id -> Uuid,
        name -> Text,
        created_at -> Timestamptz,
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
    api_key_workspaces (api_key_id, workspace_id) {
        api_key_id -> Uuid,
        workspace_id -> Uuid,
        business_id -> Uuid,
        added_at -> Timestamptz,
    }
}

diesel::table! {
    idempotency_keys (scope, key) {
        scope -> Text,
        key -> Text,
        claim_token -> Uuid,
        fingerprint -> Bytea,
        status -> Nullable<SmallInt>,
        sealed_body -> Nullable<Bytea>,
        created_at -> Timestamptz,
        locked_at -> Timestamptz,
    }
}

diesel::table! {
    quota_windows (subject, family, window_start) {
        subject -> Text,
        family -> Text,
        window_start -> Timestamptz,
        count -> Integer,
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
        anonymity_floor -> Integer,
        created_at -> Timestamptz,
        launched_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    respondents (id) {
        id -> Uuid,
        campaign_id -> Uuid,
        external_ref -> Text,
        name_sealed -> Nullable<Bytea>,
        email_sealed -> Nullable<Bytea>,
        phone_sealed -> Nullable<Bytea>,
        invitation_sealed -> Bytea,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    launch_keys (id) {
        id -> Uuid,
        campaign_id -> Uuid,
        slot -> SmallInt,
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
    spent_launch_tokens (campaign_id, jti) {
        campaign_id -> Uuid,
        jti -> Text,
        launch_key_id -> Uuid,
        expires_at -> Timestamptz,
        spent_at -> Timestamptz,
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
        answered -> Integer,
        total -> Integer,
        started_at -> Timestamptz,
        completed_at -> Nullable<Timestamptz>,
        device_id -> Nullable<Uuid>,
        app_user_id -> Nullable<Uuid>,
        app_install_id -> Nullable<Uuid>,
        identity -> Nullable<Text>,
        exchanges -> Integer,
    }
}

diesel::table! {
    answers (session_id, question_id) {
        session_id -> Uuid,
        question_id -> Text,
        rating -> Nullable<SmallInt>,
        text_sealed -> Nullable<Bytea>,
        word_count -> Integer,
        answered_at -> Timestamptz,
    }
}

diesel::joinable!(workspaces -> businesses (business_id));
diesel::joinable!(service_accounts -> businesses (business_id));
diesel::joinable!(api_keys -> service_accounts (service_account_id));
diesel::joinable!(api_key_workspaces -> api_keys (api_key_id));
diesel::joinable!(surveys -> workspaces (workspace_id));
diesel::joinable!(campaigns -> workspaces (workspace_id));
diesel::joinable!(campaigns -> surveys (survey_id));
diesel::joinable!(respondents -> campaigns (campaign_id));
diesel::joinable!(launch_keys -> campaigns (campaign_id));
diesel::joinable!(launch_links -> campaigns (campaign_id));
diesel::joinable!(sessions -> campaigns (campaign_id));
diesel::joinable!(answers -> sessions (session_id));

diesel::allow_tables_to_appear_in_same_query!(
    businesses,
    workspaces,
    service_accounts,
    api_keys,
    api_key_workspaces,
    idempotency_keys,
    quota_windows,
    surveys,
    campaigns,
    respondents,
    launch_keys,
    launch_links,
    spent_launch_tokens,
    sessions,
    answers,
);
