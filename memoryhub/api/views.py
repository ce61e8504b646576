from django.http import JsonResponse

from memoryhub import __version__


def health(request):
    return JsonResponse({"status": "ok", "version": __version__})
