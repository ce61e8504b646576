from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from memoryhub.dashboard.forms.login import DashboardLoginForm

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(template_name="registration/login.html",
                                                authentication_form=DashboardLoginForm), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("memoryhub.api.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("memoryhub.dashboard.urls")),
]

handler400 = "memoryhub.api.views.bad_request"
handler404 = "memoryhub.api.views.page_not_found"
handler500 = "memoryhub.api.views.server_error"
