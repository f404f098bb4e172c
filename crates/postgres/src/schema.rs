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

diesel::joinable!(workspaces -> businesses (business_id));
diesel::joinable!(service_accounts -> businesses (business_id));
diesel::joinable!(api_keys -> service_accounts (service_account_id));
diesel::joinable!(api_key_workspaces -> api_keys (api_key_id));

diesel::allow_tables_to_appear_in_same_query!(
    businesses,
    workspaces,
    service_accounts,
    api_keys,
    api_key_workspaces,
    idempotency_keys,
    quota_windows,
);
