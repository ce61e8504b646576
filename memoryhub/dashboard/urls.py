from django.urls import path

from memoryhub.dashboard.views import jobs, providers, spaces, tokens

app_name = "dashboard"
urlpatterns = [
    path("", spaces.home, name="home"),
    # provider services, jobs, API tokens
    path("providers/", providers.provider_list, name="providers"),
    path("providers/<str:kind>/", providers.provider_save, name="provider-save"),
    path("providers/<str:kind>/test", providers.provider_test, name="provider-test"),
    path("jobs/", jobs.job_list, name="jobs"),
    path("jobs/selftest", jobs.job_selftest, name="job-selftest"),
    path("jobs/<int:job_id>/retry", jobs.job_retry, name="job-retry"),
    path("tokens/", tokens.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke", tokens.token_revoke, name="token-revoke"),
]
